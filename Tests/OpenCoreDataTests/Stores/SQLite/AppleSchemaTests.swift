import GRDB
import Testing
@testable import OpenCoreData

/// A store OpenCoreData creates has the schema and metadata Apple's Core Data gives the same model.
@Suite struct AppleSchemaTests {
    private struct Schema: Equatable {
        var columns: [String: Set<String>] = [:]
        var indexes: [String: String] = [:]
    }

    private func schema(of url: URL) throws -> Schema {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in
            var schema = Schema()
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").map { "\($0["name"] as String) \($0["type"] as String)" }
                schema.columns[table] = Set(columns)
            }
            for row in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
                schema.indexes[row["name"]] = (row["sql"] as String).replacingOccurrences(of: "  ", with: " ")
            }
            return schema
        }
    }

    private func metadata(of url: URL) throws -> [String: Any] {
        try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    }

    @Test func newStoreMatchesApplesSampleModelV1() throws {
        let directory = TemporaryDirectory()
        let apple = directory.file("Apple.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite"), to: apple)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: apple.path)

        let model = try NSManagedObjectModel(contentsOf: Fixtures.url("SampleModel/SampleModel.xcdatamodeld"), versionName: "SampleModel")
        let ours = directory.file("Ours.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: ours)
        try coordinator.remove(store)

        let expected = try schema(of: apple)
        let actual = try schema(of: ours)
        #expect(actual.columns == expected.columns)
        #expect(actual.indexes == expected.indexes)

        let queue = try DatabaseQueue(path: ours.path)
        let (integrity, vacuum, journal, primaryKeys) = try queue.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(db, sql: "PRAGMA auto_vacuum"),
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                    .map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
            )
        }
        try queue.close()
        #expect(integrity == "ok")
        #expect(vacuum == 2)
        #expect(journal == "wal")
        #expect(primaryKeys == ["1 Car 0", "2 SportCar 1", "3 ExpensiveSportCar 2", "4 Person 0"])

        let appleMetadata = try metadata(of: apple)
        let ourMetadata = try metadata(of: ours)
        let appleHashes = try #require(appleMetadata[NSStoreModelVersionHashesKey] as? [String: Data])
        #expect(ourMetadata[NSStoreModelVersionHashesKey] as? [String: Data] == appleHashes)
        #expect(ourMetadata["NSStoreModelVersionHashesDigest"] as? String == appleMetadata["NSStoreModelVersionHashesDigest"] as? String)
        #expect(ourMetadata[NSStoreModelVersionIdentifiersKey] as? [String] == appleMetadata[NSStoreModelVersionIdentifiersKey] as? [String])
        #expect(ourMetadata[NSStoreTypeKey] as? String == "SQLite")
        #expect(ourMetadata["NSStoreModelVersionHashesVersion"] as? Int == 3)
    }

    @Test func fetchIndexesOfTheSecondVersionAreCreatedAsApplesAre() throws {
        let directory = TemporaryDirectory()
        let model = try NSManagedObjectModel(contentsOf: Fixtures.url("SampleModel/SampleModel.xcdatamodeld"), versionName: "SampleModel2")
        let ours = directory.file("Ours.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: ours))
        let apple = directory.file("Apple.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url("SampleModel/Fixtures/SampleModel_V2.sqlite"), to: apple)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: apple.path)
        #expect(try schema(of: ours).indexes == schema(of: apple).indexes)
        #expect(try schema(of: ours).columns == schema(of: apple).columns)
    }
}
