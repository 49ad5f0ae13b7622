import Foundation
import PostgreSQLScratchServer
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// The server goes away under a running store: what was saved stays saved, a save cut off
/// midway leaves nothing behind and the context as it was, and once the server is back the next
/// fetch and save work without the app doing anything.
@Suite struct PostgreSQLReconnectionTests {
    private func stack(_ url: URL) throws -> NSManagedObjectContext { try PostgreSQLStack.context(url) }

    private func count(_ context: NSManagedObjectContext) throws -> Int { try PostgreSQLStack.itemCount(context) }

    @Test func theStoreWorksAgainAfterTheServerRestarts() throws {
        let server = try PostgreSQLServer.makePrivate()
        let context = try stack(server.storeURL())
        try context.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "before"], into: context)
            try context.save()
        }
        try server.stop()
        let error = try #require(throws: NSError.self) { try count(context) }
        #expect(error.code == NSPersistentStoreOperationError)
        #expect(error.localizedDescription.contains(server.directory))
        try server.restart()
        #expect(try count(context) == 1)
        try context.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "after"], into: context)
            try context.save()
        }
        #expect(try count(try stack(server.storeURL(schema: schemaOf(context)))) == 2)
    }

    private func schemaOf(_ context: NSManagedObjectContext) -> String {
        let url = context.persistentStoreCoordinator!.persistentStores[0].url!
        return URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!.first { $0.name == "schema" }!.value!
    }

    @Test func aSaveWhoseConnectionIsCutChangesNothing() throws {
        let server = try PostgreSQLServer.required()
        let schema = PostgreSQLScratchServer.newSchemaName()
        let context = try stack(server.storeURL(schema: schema))
        try context.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "kept"], into: context)
            try context.save()
            for i in 0..<3 { ConformanceStack.insert("TSPItem", ["name": "cut \(i)"], into: context) }
        }
        // Another session holds the key table, so the save stops at its first statement that
        // needs it, inside its transaction; then the server ends the saving session.
        let blocker = try server.session(schema: schema)
        defer { blocker.close() }
        _ = try blocker.run("BEGIN", [])
        _ = try blocker.run("SELECT * FROM Z_PRIMARYKEY FOR UPDATE", [])
        let outcome = Locked<(any Error)??>(nil)
        let finished = DispatchSemaphore(value: 0)
        let saving = context
        DispatchQueue.global().async {
            do {
                try saving.performAndWait { try saving.save() }
                outcome.withLock { $0 = .some(nil) }
            } catch {
                outcome.withLock { $0 = .some(error) }
            }
            finished.signal()
        }
        let observer = try server.session(schema: schema)
        defer { observer.close() }
        var waiting: Int64?
        for _ in 0..<500 where waiting == nil {
            let rows = try observer.run(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE Z_PRIMARYKEY%'", []).rows
            waiting = rows.first.flatMap { $0.first }.flatMap(PostgreSQLValues.integer)
            if waiting == nil { usleep(20_000) }
        }
        let pid = try #require(waiting, "the save never reached the key table")
        _ = try observer.run("SELECT pg_terminate_backend($1::int4)", [.integer(pid)])
        #expect(finished.wait(timeout: .now() + 60) == .success)
        _ = try blocker.run("ROLLBACK", [])
        let error = try #require(outcome.withLock { $0 } ?? nil)
        #expect((error as NSError).code == NSPersistentStoreOperationError)
        // Nothing of the cut save is in the store, and the context still holds its changes.
        let reader = try stack(server.storeURL(schema: schema))
        #expect(try count(reader) == 1)
        try context.performAndWait {
            #expect(context.insertedObjects.count == 3)
            try context.save()
        }
        #expect(try count(reader) == 4)
    }
}
