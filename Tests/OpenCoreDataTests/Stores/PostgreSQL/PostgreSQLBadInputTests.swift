import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// What a user can get wrong with a PostgreSQL store, and what a database can hold that it should
/// not: each gets a Core Data error that says what happened, nothing crashes or hangs, and nothing
/// is half-written.
@Suite struct PostgreSQLBadInputTests {
    private func coordinator() -> NSPersistentStoreCoordinator {
        NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
    }

    private func add(_ url: URL, to coordinator: NSPersistentStoreCoordinator, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try coordinator.addPersistentStore(type: NSPersistentStore.StoreType(rawValue: PostgreSQLStoreInstaller.typeName), at: url, options: options)
    }

    @Test func anUnreachableServerIsAnOpenErrorNamingHostAndPort() throws {
        let server = try PostgreSQLServer.required()
        // A port nothing listens on: the server's own, on an address it does not listen on.
        let url = URL(string: "postgres://ocd@127.0.0.2:\(server.port)/postgres?schema=s&sslmode=disable&connect_timeout=2")!
        let error = try #require(throws: NSError.self) { try add(url, to: coordinator()) }
        #expect(error.code == NSPersistentStoreOpenError)
        #expect(error.localizedDescription.contains("127.0.0.2:\(server.port)"))
        #expect(error.userInfo[PostgreSQLErrors.serverKey] as? String == "127.0.0.2:\(server.port)")
    }

    @Test func aWrongPasswordIsRefusedWithTheServersReason() throws {
        let server = try PostgreSQLServer.required()
        let url = URL(string: "postgres://ocd:hunter2-wrong@127.0.0.1:\(server.port)/postgres?schema=s&sslmode=disable")!
        let error = try #require(throws: NSError.self) { try add(url, to: coordinator()) }
        #expect(error.code == NSPersistentStoreOpenError)
        #expect(error.userInfo[PostgreSQLErrors.sqlStateKey] as? String == "28P01")
        #expect(error.localizedDescription.contains("ocd"))
        // Errors end up in logs: the password is never in them.
        #expect(!"\(error) \(error.userInfo)".contains("hunter2"))
        // The right one opens the store over the same TCP port.
        let store = try add(server.tcpStoreURL(), to: coordinator())
        #expect(store.type == PostgreSQLStoreInstaller.typeName)
    }

    @Test func aMalformedURLIsAnInvalidTypeError() throws {
        _ = try PostgreSQLServer.required()
        for text in ["postgres://ocd@localhost:99999/db", "postgres://ocd@localhost/db?sslmode=sometimes", "postgres://ocd@localhost/db?schema=a;drop"] {
            let error = try #require(throws: NSError.self) { try add(URL(string: text)!, to: coordinator()) }
            #expect(error.code == NSPersistentStoreInvalidTypeError, "\(text)")
        }
        // A password in the URL, in the user part or as a query item, is not repeated in the error.
        for text in ["postgres://ocd:hunter2@localhost:99999/db", "postgres://ocd@localhost:99999/db?password=hunter2"] {
            let error = try #require(throws: NSError.self) { try add(URL(string: text)!, to: coordinator()) }
            #expect(error.localizedDescription.contains("***"), "\(text)")
            #expect(!"\(error) \(error.userInfo)".contains("hunter2"), "\(text)")
        }
    }

    @Test func aStoreOfAnotherModelIs134100() throws {
        let server = try PostgreSQLServer.required()
        let url = server.storeURL()
        _ = try add(url, to: coordinator())
        let other = NSManagedObjectModel()
        other.entities = [TestModels.entity("Note", [TestModels.attribute("text", .stringAttributeType)])]
        let error = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: other).addPersistentStore(
                type: NSPersistentStore.StoreType(rawValue: PostgreSQLStoreInstaller.typeName), at: url)
        }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
    }

    @Test func aSchemaHoldingATableOfTheSameNameIsRefusedAndLeftAsItWas() throws {
        let server = try PostgreSQLServer.required()
        let schema = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let session = try server.session(schema: schema)
        defer { session.close() }
        _ = try session.run("CREATE SCHEMA \(schema)", [])
        _ = try session.run("CREATE TABLE \(schema).ZTSPITEM (something int)", [])
        let error = try #require(throws: NSError.self) { try add(server.storeURL(schema: schema), to: coordinator()) }
        #expect(error.code == NSPersistentStoreOpenError)
        // The store's creation is one transaction: none of its tables stayed.
        let tables = try session.run("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [.text(schema)])
        #expect(tables.rows == [[.text("ztspitem")]])
    }

    @Test func aTableDroppedBehindTheStoresBackFailsTheFetchWithAnError() throws {
        let server = try PostgreSQLServer.required()
        let schema = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let coordinator = coordinator()
        _ = try add(server.storeURL(schema: schema), to: coordinator)
        let session = try server.session(schema: schema)
        defer { session.close() }
        _ = try session.run("DROP TABLE ZTSPITEM", [])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let error = try #require(throws: NSError.self) {
            try context.performAndWait { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
        }
        #expect(error.code == NSPersistentStoreOperationError)
        #expect(error.userInfo[PostgreSQLErrors.sqlStateKey] as? String == "42P01")
    }

    @Test func hostileValuesAreBoundNeverSpliced() throws {
        let server = try PostgreSQLServer.required()
        let coordinator = coordinator()
        _ = try add(server.storeURL(), to: coordinator)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let hostile = ["'); DROP TABLE ZTSPITEM; --", "100% _sure_ \\ back", "$1 $2"]
        try context.performAndWait {
            for name in hostile { ConformanceStack.insert("TSPItem", ["name": name], into: context) }
            try context.save()
            context.reset()
            for name in hostile {
                let exact = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                exact.predicate = NSPredicate(format: "name == %@", name)
                #expect(try context.fetch(exact).count == 1, "\(name)")
                let prefix = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                prefix.predicate = NSPredicate(format: "name BEGINSWITH %@", String(name.prefix(4)))
                #expect(try context.fetch(prefix).count == 1, "\(name)")
            }
            let wildcard = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            wildcard.predicate = NSPredicate(format: "name CONTAINS %@", "%")
            #expect(try context.fetch(wildcard).compactMap { $0.value(forKey: "name") as? String } == ["100% _sure_ \\ back"])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == hostile.count)
            let badKey = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            badKey.predicate = NSPredicate(format: "%K == 1", "name; DROP TABLE ZTSPITEM")
            let error = try #require(throws: NSError.self) { try context.fetch(badKey) }
            #expect(error.code == NSCoreDataError)
        }
    }

    @Test func textWithANulCharacterFailsTheSaveAndWritesNothing() throws {
        let server = try PostgreSQLServer.required()
        let coordinator = coordinator()
        _ = try add(server.storeURL(), to: coordinator)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "fine"], into: context)
            ConformanceStack.insert("TSPItem", ["name": "nul\u{0}inside"], into: context)
            // PostgreSQL's text holds no U+0000 (docs/compatibility.md): the whole save fails.
            let error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.code == NSPersistentStoreOperationError)
            #expect(context.insertedObjects.count == 2)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 2)
            context.rollback()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 0)
        }
    }
}
