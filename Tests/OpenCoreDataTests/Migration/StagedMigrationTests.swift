import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// Staged migration of Apple's SampleModel3 store, written with version 1: a custom stage to
/// version 2 that gives every user a Pet named after its `petName`, then a lightweight stage to
/// version 3, which drops `petName`. Entity numbers change on the way (User 1 → 2).
@Suite struct StagedMigrationTests {
    static let momd = Fixtures.url("SampleModel3/Fixtures/SampleModel3.momd")

    struct Versions {
        let v1: NSManagedObjectModel
        let v2: NSManagedObjectModel
        let v3: NSManagedObjectModel

        init() throws {
            v1 = try FixtureModelVersion.sampleModel3("SampleModel3").load()
            v2 = try FixtureModelVersion.sampleModel3("SampleModel3_v2").load()
            v3 = try FixtureModelVersion.sampleModel3("SampleModel3_v3").load()
        }
    }

    /// A copy of Apple's version-1 store in `directory`.
    static func version1Store(in directory: TemporaryDirectory) throws -> URL {
        let copy = directory.file("SampleModel3.sqlite")
        try Data(contentsOf: Fixtures.url("SampleModel3/Fixtures/SampleModel3_V1.sqlite")).write(to: copy)
        return copy
    }

    /// The users' names and pet names, read with SQLite.
    static func petNames(_ url: URL) throws -> [String: String] {
        let queue = try DatabaseQueue(path: url.path)
        return try queue.read { db in
            var names: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT Z_PK, ZPETNAME FROM ZUSER") { names["\(row[0] as Int64)"] = row[1] }
            return names
        }
    }

    /// The custom stage of the fixture's story, recording what its handlers saw.
    final class PetStage: @unchecked Sendable {
        let stage: NSCustomMigrationStage
        var entitiesBefore: [String] = []
        var petsMade = 0

        init(_ versions: Versions, next: NSManagedObjectModelReference? = nil) {
            stage = NSCustomMigrationStage(
                migratingFrom: NSManagedObjectModelReference(model: versions.v1, versionChecksum: versions.v1.versionChecksum),
                to: next ?? NSManagedObjectModelReference(model: versions.v2, versionChecksum: versions.v2.versionChecksum))
            stage.label = "pets from petName"
            stage.willMigrateHandler = { [weak self] manager, _ in
                self?.entitiesBefore = manager.container?.managedObjectModel.entities.compactMap(\.name).sorted() ?? []
            }
            stage.didMigrateHandler = { [weak self] manager, _ in
                let context = try #require(manager.container).newBackgroundContext()
                self?.petsMade = try context.performAndWait {
                    let users = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User"))
                    for user in users {
                        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                        pet.setValue(user.value(forKey: "petName") as? String ?? "nameless", forKey: "name")
                        pet.setValue(user, forKey: "owner")
                    }
                    try context.save()
                    return users.count
                }
            }
        }
    }

    static func open(_ url: URL, with model: NSManagedObjectModel, stages: [NSMigrationStage]) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                NSPersistentStoreStagedMigrationManagerOptionKey: NSStagedMigrationManager(stages),
            ])
        return coordinator
    }

    @Test func checksumsAreXcodes() throws {
        let versions = try Versions()
        let expected = try FixtureMetadata.versionChecksums(momd: "SampleModel3/Fixtures/SampleModel3.momd")
        #expect(versions.v1.versionChecksum == expected["SampleModel3"])
        #expect(versions.v2.versionChecksum == expected["SampleModel3_v2"])
        #expect(versions.v3.versionChecksum == expected["SampleModel3_v3"])
        #expect(versions.v2.versionChecksum == "rzn6eNBLyn8k3AoC3kH3yymPT0vSUPaVcgi0v2SuHS8=")
    }

    @Test func version1BecomesVersion3ThroughACustomAndALightweightStage() throws {
        let directory = TemporaryDirectory()
        let url = try Self.version1Store(in: directory)
        let before = try Self.petNames(url)
        #expect(before.count == 12)
        let versions = try Versions()
        let pets = PetStage(versions)
        let coordinator = try Self.open(url, with: versions.v3, stages: [pets.stage, NSLightweightMigrationStage([versions.v3.versionChecksum])])

        #expect(pets.entitiesBefore == ["User"])
        #expect(pets.petsMade == 12)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let after = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User")).map { user in
                (user.objectID.uriRepresentation().lastPathComponent, (user.value(forKey: "pet") as? NSManagedObject)?.value(forKey: "name") as? String)
            }
        }
        #expect(Dictionary(uniqueKeysWithValues: after.map { ($0.0.dropFirst().description, $0.1 ?? "") }) == before)

        let queue = try DatabaseQueue(path: url.path)
        try queue.read { db in
            #expect(try Int.fetchAll(db, sql: "SELECT DISTINCT Z_ENT FROM ZUSER") == [2])
            #expect(try Int.fetchAll(db, sql: "SELECT DISTINCT Z_ENT FROM ZPET") == [1])
            #expect(try String.fetchAll(db, sql: "SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT") == ["Pet", "User"])
            #expect(try !db.columns(in: "ZUSER").map(\.name).contains("ZPETNAME"))
            let (plist, uuid) = try #require(try SQLiteMetadata.row(in: db))
            let metadata = try StoreMetadata.decode(plist: plist, uuid: uuid)
            #expect(metadata["NSStoreModelVersionChecksumKey"] as? String == versions.v3.versionChecksum)
        }
    }

    /// The stages' models may be named in every way a reference allows: a file, a name in a
    /// bundle, entity hashes in a bundle.
    @Test func referencesFindModelsByFileNameAndHashes() throws {
        let versions = try Versions()
        let checksum = versions.v2.versionChecksum
        let bundle = try #require(Bundle(path: Fixtures.url("SampleModel3/Fixtures").path))
        let references = [
            NSManagedObjectModelReference(fileURL: Self.momd.appendingPathComponent("SampleModel3_v2.mom"), versionChecksum: checksum),
            NSManagedObjectModelReference(name: "SampleModel3_v2", in: bundle, versionChecksum: checksum),
            NSManagedObjectModelReference(entityVersionHashes: versions.v2.entityVersionHashesByName, in: bundle, versionChecksum: checksum),
        ]
        for reference in references {
            #expect(try reference.resolve().entityVersionHashesByName == versions.v2.entityVersionHashesByName)
            #expect(reference.resolvedModel.entitiesByName["Pet"] != nil)
        }
        let wrong = NSManagedObjectModelReference(fileURL: Self.momd.appendingPathComponent("SampleModel3_v2.mom"), versionChecksum: versions.v3.versionChecksum)
        #expect(throws: NSError.self) { try wrong.resolve() }
        #expect(wrong.resolvedModel.entities.isEmpty)
    }

    @Test func aStageWhoseModelCannotBeFoundFailsWith134504AndLeavesTheStore() throws {
        let directory = TemporaryDirectory()
        let url = try Self.version1Store(in: directory)
        let versions = try Versions()
        let pets = PetStage(versions, next: NSManagedObjectModelReference(name: "NoSuchModel", in: nil, versionChecksum: versions.v2.versionChecksum))
        let error = #expect(throws: NSError.self) {
            try Self.open(url, with: versions.v3, stages: [pets.stage, NSLightweightMigrationStage([versions.v3.versionChecksum])])
        }
        #expect(error?.code == NSManagedObjectModelReferenceNotFoundError)
        #expect(try Self.petNames(url).count == 12)

        let unknown = #expect(throws: NSError.self) {
            try Self.open(url, with: versions.v3, stages: [NSLightweightMigrationStage([versions.v1.versionChecksum, "bm90IGEgbW9kZWw="])])
        }
        #expect(unknown?.code == NSManagedObjectModelReferenceNotFoundError)
        #expect(pets.petsMade == 0)
    }

    @Test func aStoreOfALaterVersionIsNotMigratedBackward() throws {
        let directory = TemporaryDirectory()
        let url = try Self.version1Store(in: directory)
        let versions = try Versions()
        let stages = { [PetStage(versions).stage, NSLightweightMigrationStage([versions.v3.versionChecksum])] as [NSMigrationStage] }
        _ = try Self.open(url, with: versions.v3, stages: stages())
        let error = #expect(throws: NSError.self) { try Self.open(url, with: versions.v2, stages: stages()) }
        #expect(error?.code == NSStagedMigrationBackwardMigrationError)
    }

    /// A store already at the model's version runs no stage; a handler that fails stops the
    /// migration with its error, and the store stays at the version it had reached.
    @Test func handlersRunOnlyWhenTheirStepIsTakenAndTheirErrorsStopTheMigration() throws {
        let directory = TemporaryDirectory()
        let url = try Self.version1Store(in: directory)
        let versions = try Versions()
        struct Refused: Error {}
        let failing = PetStage(versions)
        failing.stage.willMigrateHandler = { _, _ in throw Refused() }
        #expect(throws: Refused.self) {
            try Self.open(url, with: versions.v3, stages: [failing.stage, NSLightweightMigrationStage([versions.v3.versionChecksum])])
        }
        #expect(try Self.petNames(url).count == 12)
        #expect(failing.petsMade == 0)

        let pets = PetStage(versions)
        _ = try Self.open(url, with: versions.v2, stages: [pets.stage, NSLightweightMigrationStage([versions.v3.versionChecksum])])
        #expect(pets.petsMade == 12)
        let again = PetStage(versions)
        _ = try Self.open(url, with: versions.v2, stages: [again.stage, NSLightweightMigrationStage([versions.v3.versionChecksum])])
        #expect(again.petsMade == 0)
        #expect(again.entitiesBefore.isEmpty)
    }
}
