import Foundation
import FuzzSupport
import Testing

@testable import OpenCoreData

/// Apps ship models compiled: Xcode turns the `.xcdatamodeld` into a `.momd` folder of `.mom`
/// keyed archives. Loading those must give the same model as the source: the same entities and
/// properties, and hashes equal to the ones Xcode recorded, or no store written by the app opens.
@Suite struct CompiledModelTests {
    /// The `.momd` folder that holds `version`'s compiled model.
    static func momd(_ version: FixtureModelVersion) -> URL { Fixtures.url(version.momd) }

    @Test(arguments: FixtureModelVersion.all)
    func compiledHashesEqualXcodesVersionInfoAndTheSource(_ version: FixtureModelVersion) throws {
        let compiled = try NSManagedObjectModel(contentsOf: Self.momd(version), versionName: version.version)
        let expected = try #require(try FixtureMetadata.versionHashes(momd: version.momd)[version.version])
        #expect(compiled.entityVersionHashesByName == expected)
        #expect(compiled.entityVersionHashesByName == (try version.load()).entityVersionHashesByName)
        if let checksum = try FixtureMetadata.versionChecksums(momd: version.momd)[version.version] {
            #expect(compiled.versionChecksum == checksum)
        }
    }

    @Test(arguments: FixtureModelVersion.all)
    func compiledModelDescribesWhatTheSourceDoes(_ version: FixtureModelVersion) throws {
        let compiled = try NSManagedObjectModel(contentsOf: Self.momd(version), versionName: version.version)
        let source = try version.load()
        #expect(compiled.versionIdentifiers == source.versionIdentifiers)
        #expect(Set(compiled.entities.compactMap(\.name)) == Set(source.entities.compactMap(\.name)))
        for entity in source.entities {
            let other = try #require(compiled.entitiesByName[entity.name!])
            #expect(Self.describe(other) == Self.describe(entity))
        }
    }

    /// A `.momd` without a version named loads the one `VersionInfo.plist` calls current.
    @Test func aMomdLoadsItsCurrentVersion() throws {
        let url = Fixtures.url("SampleModel3/Fixtures/SampleModel3.momd")
        let model = try #require(NSManagedObjectModel(contentsOf: url))
        let info = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: url.appendingPathComponent("VersionInfo.plist")), format: nil)
                as? [String: Any])
        let current = try #require(info["NSManagedObjectModel_CurrentVersionName"] as? String)
        #expect(model.entityVersionHashesByName == (try FixtureMetadata.versionHashes(momd: "SampleModel3/Fixtures/SampleModel3.momd"))[current])
        #expect(model.loadedFrom?.lastPathComponent == "SampleModel3.momd")
    }

    @Test func aSingleMomFileLoads() throws {
        let url = Fixtures.url("SampleModel/Fixtures/SampleModel.momd/SampleModel2.mom")
        let model = try NSManagedObjectModel(validatingContentsOf: url)
        #expect(model.versionIdentifiers == ["2"])
        #expect(model.entitiesByName["LuxuryCar"]?.renamingIdentifier == "ExpensiveSportCar")
        #expect(model.entitiesByName["Car"]?.indexes.map(\.name) == ["byMakerAndNumberPlate"])
    }

    @Test func anUnknownVersionOfAMomdIsNamedInTheError() throws {
        let error = #expect(throws: NSError.self) {
            try NSManagedObjectModel(contentsOf: Fixtures.url("SampleModel3/Fixtures/SampleModel3.momd"), versionName: "SampleModel3_v9")
        }
        #expect(error?.code == NSFileReadNoSuchFileError)
        #expect(error?.localizedDescription.contains("SampleModel3_v2") == true)
    }

    /// A store Apple wrote opens with the compiled model of its version, and one written with an
    /// older version migrates: the source model is found among the `.momd`'s versions.
    @Test func storesOpenAndMigrateWithCompiledModels() throws {
        let directory = TemporaryDirectory()
        let store = directory.url.appendingPathComponent("Cars.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite"), to: store)
        let momd = Fixtures.url("SampleModel/Fixtures/SampleModel.momd")

        let version2 = try NSManagedObjectModel(contentsOf: momd, versionName: "SampleModel2")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: store,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let counts = try context.performAndWait {
            (try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Car")),
             try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "LuxuryCar")))
        }
        #expect(counts.0 == 125)
        #expect(counts.1 == 5)
    }

    /// Damaged compiled models (bits flipped, bytes set to limits, cut, pieces repeated) are
    /// refused with an error or load as some model, and never stop the program.
    @Test func damagedCompiledModelsNeverStopTheProgram() throws {
        let folder = Fixtures.url("SampleModel/Fixtures/SampleModel.momd")
        let seeds = try ["SampleModel.mom", "SampleModel2.mom", "SampleModel3.mom"].map { [UInt8](try Data(contentsOf: folder.appendingPathComponent($0))) }
        var random = SplitMix64(seed: FuzzSettings.seed)
        let iterations = FuzzSettings.iterations("OPENCOREDATA_MOM_FUZZ_ITERATIONS", default: 3_000)
        var loaded = 0
        for _ in 0..<iterations {
            let bytes = ByteMutation.damage(seeds[Int(random.next() % UInt64(seeds.count))], &random)
            do {
                let model = try XcodeModelLoader.model(from: Data(bytes), file: folder.appendingPathComponent("fuzz.mom"))
                _ = model.entityVersionHashesByName
                loaded += 1
            } catch let error as NSError {
                #expect(error.code == NSFileReadCorruptFileError, "\(error)")
            }
        }
        print("compiled model fuzzing: \(iterations) damaged models, \(loaded) still loaded")
        #expect(loaded > 0)
    }

    /// Everything about an entity a store or a context depends on, as text to compare.
    static func describe(_ entity: NSEntityDescription) -> String {
        var lines = [
            "\(entity.name!) class=\(entity.managedObjectClassName ?? "") parent=\(entity.superentity?.name ?? "") abstract=\(entity.isAbstract)",
            "renaming=\(entity.renamingIdentifier ?? "") modifier=\(entity.versionHashModifier ?? "")",
            "unique=\(entity.uniquenessConstraints.map { VersionHasher.constraintNames($0) })",
            "indexes=\(entity.indexes.map { "\($0.name):\($0.elements.map { "\($0.propertyName ?? "")/\($0.isAscending)/\($0.collationType.rawValue)" })" })",
        ]
        for property in entity.properties.sorted(by: { $0.name < $1.name }) {
            var line = "\(property.name) optional=\(property.isOptional) transient=\(property.isTransient) renaming=\(property.renamingIdentifier ?? "") indexed=\(property.isIndexed)"
            if let attribute = property as? NSAttributeDescription {
                line += " type=\(attribute.attributeType.rawValue) default=\(String(describing: attribute.defaultValue))"
                line += " transformer=\(attribute.valueTransformerName ?? "") external=\(attribute.allowsExternalBinaryDataStorage)"
                line += " preserve=\(attribute.preservesValueInHistoryOnDeletion)"
            }
            if let relationship = property as? NSRelationshipDescription {
                line += " destination=\(relationship.destinationEntity?.name ?? "") inverse=\(relationship.inverseRelationship?.name ?? "")"
                line += " min=\(relationship.minCount) max=\(relationship.maxCount) ordered=\(relationship.isOrdered) rule=\(relationship.deleteRule.rawValue)"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
