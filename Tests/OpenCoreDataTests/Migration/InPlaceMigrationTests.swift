import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// Lightweight migration in place, with Apple's own migration of `SampleModel_V1.sqlite` to the
/// second model version (`SampleModel_V2.sqlite`) as the oracle.
@Suite struct InPlaceMigrationTests {
    private static let bundle = Fixtures.url(FixtureModelVersion.sampleModelBundle)

    /// A copy of Apple's V1 store in `directory`.
    private func version1Store(in directory: TemporaryDirectory, named name: String = "SampleModel.sqlite") throws -> URL {
        let copy = directory.file(name)
        try Data(contentsOf: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite")).write(to: copy)
        for suffix in ["-wal", "-shm"] {
            let sidecar = Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite" + suffix)
            if FileManager.default.fileExists(atPath: sidecar.path) {
                try Data(contentsOf: sidecar).write(to: URL(fileURLWithPath: copy.path + suffix))
            }
        }
        return copy
    }

    /// What a store holds that a migration must get right, read with SQLite.
    private struct Shape: Equatable {
        var tables: [String: String] = [:]
        var indexes: [String: String] = [:]
        var primaryKeys: [String] = []
        var rows: [String: [String]] = [:]
        var uuid = ""
        var hashes: [String: Data] = [:]
        var identifiers: [String] = []
        var checksum = ""
        var digest = ""

        init(_ url: URL) throws {
            let queue = try DatabaseQueue(path: url.path)
            try queue.read { db in
                for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'") {
                    let sql: String = row["sql"]
                    if row["type"] as String == "table" { tables[row["name"]] = sql } else { indexes[row["name"]] = sql }
                }
                primaryKeys = try Row.fetchAll(db, sql: "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0)" }
                for table in ["ZCAR", "ZPERSON"] {
                    rows[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY Z_PK").map { "\($0)" }
                }
                guard let (plist, id) = try SQLiteMetadata.row(in: db) else { return }
                uuid = id
                let metadata = try StoreMetadata.decode(plist: plist, uuid: id)
                hashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Data]) ?? [:]
                identifiers = (metadata[NSStoreModelVersionIdentifiersKey] as? [Any])?.map { "\($0)" } ?? []
                checksum = metadata["NSStoreModelVersionChecksumKey"] as? String ?? ""
                digest = metadata["NSStoreModelVersionHashesDigest"] as? String ?? ""
            }
            tables["Z_MODELCACHE"] = nil
        }
    }

    /// The schema, rows and primary-key rows of the counter store of the last test.
    private static func counterStore(_ url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        return try queue.read { db in
            let schema = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM ZCOUNTER ORDER BY Z_PK").map { "\($0)" }
            let keys = try Row.fetchAll(db, sql: "SELECT * FROM Z_PRIMARYKEY").map { "\($0)" }
            return schema + rows + keys
        }
    }

    @Test func version1BecomesWhatApplesMigrationMade() throws {
        let directory = TemporaryDirectory()
        let url = try version1Store(in: directory)
        let model = try NSManagedObjectModel(contentsOf: Self.bundle, versionName: "SampleModel2")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            type: .sqlite, at: url,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        #expect(store.identifier == "753753D3-A961-4901-AB05-8CC48B1D3853")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let counts = try context.performAndWait {
            try ["Car", "LuxuryCar", "Person"].map { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: $0)) }
        }
        #expect(counts == [125, 5, 20])
        try coordinator.remove(store)

        let migrated = try Shape(url)
        let apple = try Shape(Fixtures.url("SampleModel/Fixtures/SampleModel_V2.sqlite"))
        #expect(apple.tables.keys.contains("ZCAR") && apple.rows["ZCAR"]?.count == 125 && apple.indexes.count >= 5)
        #expect(apple.tables["ZCAR"]?.contains("ZCOLOR") == false)
        #expect(migrated.tables == apple.tables)
        #expect(migrated.indexes == apple.indexes)
        #expect(migrated.primaryKeys == apple.primaryKeys)
        #expect(migrated.rows == apple.rows)
        #expect(migrated.uuid == apple.uuid)
        #expect(migrated.hashes == apple.hashes)
        #expect(migrated.identifiers == apple.identifiers && migrated.identifiers == ["2"])
        // Apple's store (framework 1044) has the digest; the checksum key came with later versions.
        #expect(!apple.digest.isEmpty && migrated.digest == apple.digest)
        #expect(apple.checksum.isEmpty && !migrated.checksum.isEmpty)
    }

    @Test func withoutTheOptionTheStoreIsRefusedAndLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let url = try version1Store(in: directory)
        let before = try Data(contentsOf: url)
        let model = try NSManagedObjectModel(contentsOf: Self.bundle, versionName: "SampleModel2")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aContainerMigratesByDefault() throws {
        let directory = TemporaryDirectory()
        let url = try version1Store(in: directory)
        let model = try NSManagedObjectModel(contentsOf: Self.bundle, versionName: "SampleModel2")
        let container = NSPersistentContainer(name: "SampleModel", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        let count = try container.viewContext.performAndWait {
            try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "LuxuryCar"))
        }
        #expect(count == 5)
    }

    /// With no version of the model to look among (a model built in code), Apple's store
    /// migrates from the model it carries in `Z_MODELCACHE`, as Core Data does; without that
    /// cache, the source model is missing (134130).
    @Test func aStoreOfNoKnownVersionMigratesFromItsModelCache() throws {
        let directory = TemporaryDirectory()
        let url = try version1Store(in: directory)
        let model = try NSManagedObjectModel(contentsOf: Self.bundle, versionName: "SampleModel2")
        model.loadedFrom = nil
        let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let counts = try context.performAndWait {
            try ["Car", "LuxuryCar", "Person"].map { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: $0)) }
        }
        #expect(counts == [125, 5, 20])

        let uncached = try version1Store(in: directory, named: "Uncached.sqlite")
        try DatabaseQueue(path: uncached.path).write { try $0.execute(sql: "DELETE FROM Z_MODELCACHE") }
        let error = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(type: .sqlite, at: uncached, options: options)
        }
        #expect(error.code == NSMigrationMissingSourceModelError)
    }

    /// A model change inference refuses fails with 134140 around 134190; a required attribute
    /// left empty fails the migration itself with 134110; each leaves the store as it was.
    @Test func refusedAndFailedMigrationsLeaveTheStoreAlone() throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Counter.xcdatamodeld")
        func version(_ name: String, _ attributes: String) throws {
            let folder = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let xml = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22A380" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                    <entity name="Counter" representedClassName="NSManagedObject" syncable="YES">
                        \(attributes)
                    </entity>
                </model>
                """
            try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        try version("V1", #"<attribute name="count" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>"#)
        try version("V2", #"<attribute name="count" optional="YES" attributeType="String"/>"#)
        try version("V3", #"<attribute name="count" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/><attribute name="label" attributeType="String"/>"#)
        let url = directory.file("Counter.sqlite")
        let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "V1"))
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context).setValue(7, forKey: "count")
                try context.save()
            }
            try coordinator.remove(store)
        }
        let before = try Self.counterStore(url)

        let typeChange = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "V2"))
        let refused = try #require(throws: NSError.self) { try typeChange.addPersistentStore(type: .sqlite, at: url, options: options) }
        #expect(refused.code == NSMigrationMissingMappingModelError)
        #expect((refused.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSInferredMappingModelError)
        #expect(try Self.counterStore(url) == before)

        let required = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "V3"))
        let failed = try #require(throws: NSError.self) { try required.addPersistentStore(type: .sqlite, at: url, options: options) }
        #expect(failed.code == NSMigrationError)
        #expect("\(failed)".contains("Cannot migrate store in-place"))
        #expect(try Self.counterStore(url) == before)
    }

    /// SampleModel3 version 1 to 2 adds Pet, which sorts before User: every User row, the key
    /// table and the history move from entity 1 to 2. Version 2 to 3 then drops `petName`.
    @Test func renumberedEntitiesMoveTheirRowsKeysAndHistory() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("SampleModel3.sqlite")
        try Data(contentsOf: Fixtures.url("SampleModel3/Fixtures/SampleModel3_V1.sqlite")).write(to: url)
        let bundle = Fixtures.url(FixtureModelVersion.sampleModel3Bundle)
        let options: [AnyHashable: Any] = [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true, NSPersistentHistoryTrackingKey: true,
        ]
        // History recorded under version 1 names User as entity 1.
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "SampleModel3"))
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentHistoryTrackingKey: true])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                user.setValue("User_new", forKey: "name")
                try context.save()
            }
            try coordinator.remove(store)
        }

        let v2 = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "SampleModel3_v2"))
        let store = try v2.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = v2
        let (names, petNames, changedEntities) = try context.performAndWait {
            let users = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User"))
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
            pet.setValue("Rex", forKey: "name")
            pet.setValue(users[0], forKey: "owner")
            try context.save()
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
            let transactions = (result as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
            return (
                users.compactMap { $0.value(forKey: "name") as? String }, users.compactMap { $0.value(forKey: "petName") as? String },
                transactions.flatMap { $0.changes ?? [] }.map { $0.changedObjectID.entity.name ?? "?" })
        }
        #expect(names.count == 13 && petNames.count == 12)
        #expect(changedEntities.first == "User" && changedEntities.contains("Pet"))
        try v2.remove(store)
        let keys = try DatabaseQueue(path: url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT").map { "\($0)" }
        }
        #expect(keys == ["[Z_ENT:1 Z_NAME:\"Pet\" Z_MAX:1]", "[Z_ENT:2 Z_NAME:\"User\" Z_MAX:13]"])
        let userEntities = try DatabaseQueue(path: url.path).read { db in try Int.fetchAll(db, sql: "SELECT DISTINCT Z_ENT FROM ZUSER") }
        #expect(userEntities == [2])

        let v3 = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "SampleModel3_v3"))
        let migrated = try v3.addPersistentStore(type: .sqlite, at: url, options: options)
        let owners = try DatabaseQueue(path: url.path).read { db in
            (try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'ZUSER'") ?? "",
             try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPET WHERE ZOWNER IS NOT NULL") ?? 0)
        }
        #expect(!owners.0.contains("ZPETNAME") && owners.1 == 1)
        try v3.remove(migrated)
    }
}
