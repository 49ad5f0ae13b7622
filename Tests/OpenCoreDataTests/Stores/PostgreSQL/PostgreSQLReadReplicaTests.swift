import Foundation
import PostgreSQLScratchServer
import Testing

@testable import OpenCoreData

/// A store added read-only is read, never created or written: so it opens on a hot standby (a read
/// replica) and follows what the primary saves, while a save through it is refused and a schema
/// without a store stays without one.
@Suite struct PostgreSQLReadReplicaTests {
    private func context(_ url: URL, readOnly: Bool = false) throws -> NSManagedObjectContext {
        try PostgreSQLStack.context(url, options: readOnly ? [NSReadOnlyPersistentStoreOption: true] : nil)
    }

    private func count(_ context: NSManagedObjectContext) throws -> Int { try PostgreSQLStack.itemCount(context) }

    private func insert(_ names: [String], into context: NSManagedObjectContext) throws {
        try context.performAndWait {
            for name in names { ConformanceStack.insert("TSPItem", ["name": name], into: context) }
            try context.save()
        }
    }

    @Test func aReadOnlyStoreOnAStandbyFollowsThePrimary() throws {
        let primary = try PostgreSQLServer.makePrivate()
        let schema = PostgreSQLScratchServer.newSchemaName()
        let writer = try context(primary.storeURL(schema: schema))
        try insert(["Milk", "Bread"], into: writer)
        let standby = try primary.makeStandby()
        let reader = try context(standby.storeURL(schema: schema), readOnly: true)
        #expect(try count(reader) == 2)

        try insert(["Eggs"], into: writer)
        let deadline = Date().addingTimeInterval(30)
        while try count(reader) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try count(reader) == 3)
        let names = try reader.performAndWait {
            try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(names == ["Bread", "Eggs", "Milk"])

        // The standby refuses to open the store for writing, with Core Data's open error.
        let error = try #require(throws: NSError.self) { try context(standby.storeURL(schema: schema)) }
        #expect(error.code == NSPersistentStoreOpenError)
    }

    @Test func aReadOnlyStoreRefusesSavesAndIsNeverCreated() throws {
        let server = try PostgreSQLServer.required()
        let schema = PostgreSQLScratchServer.newSchemaName()
        let writer = try context(server.storeURL(schema: schema))
        try insert(["Milk"], into: writer)
        let reader = try context(server.storeURL(schema: schema), readOnly: true)
        #expect(throws: NSError.self) { try insert(["Tea"], into: reader) }
        #expect(try count(writer) == 1)

        let missing = PostgreSQLScratchServer.newSchemaName()
        let error = try #require(throws: NSError.self) { try context(server.storeURL(schema: missing), readOnly: true) }
        #expect(error.code == NSFileNoSuchFileError)
        #expect(error.localizedDescription.contains("no store in schema '\(missing)'"))
        let session = try server.session(schema: schema)
        defer { session.close() }
        let schemas = try session.run("SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", [.text(missing)]).rows
        #expect(schemas.first?.first == .integer(0))
    }
}
