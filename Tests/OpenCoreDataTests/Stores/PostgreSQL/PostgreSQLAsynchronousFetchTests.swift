import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// An asynchronous fetch on a PostgreSQL store: cancelling it cancels the statement on the server,
/// so the server stops working on a read nobody wants.
@Suite struct PostgreSQLAsynchronousFetchTests {
    @Test func cancellingTheFetchCancelsTheStatementOnTheServer() throws {
        let server = try PostgreSQLServer.required()
        let schema = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try coordinator.addPersistentStore(type: NSPersistentStore.StoreType(rawValue: PostgreSQLStoreInstaller.typeName), at: server.storeURL(schema: schema))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try StoreConformanceTests.items(in: context)
        // Another session locks the table, so the fetch's SELECT waits on the server until cancelled.
        let blocker = try server.session(schema: schema)
        defer { blocker.close() }
        _ = try blocker.run("BEGIN", [])
        _ = try blocker.run("LOCK TABLE ZTSPITEM IN ACCESS EXCLUSIVE MODE", [])
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: context)
        let result: NSAsynchronousFetchResult<NSManagedObject> = try context.performAndWait {
            try context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
        }
        let observer = try server.session(schema: schema)
        defer { observer.close() }
        let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT t.Z_PK%'"
        var seen = false
        for _ in 0..<500 where !seen {
            seen = try observer.run(waiting, []).rows.first?.first == .integer(1)
            if !seen { usleep(20_000) }
        }
        #expect(seen, "the fetch's statement never reached the server")
        result.cancel()
        // The fetch ends while the lock is still held: the server stopped the statement.
        #expect(probe.wait(seconds: 60))
        #expect((result.operationError as NSError?)?.code == NSUserCancelledError)
        #expect(try observer.run(waiting, []).rows.first?.first == .integer(0))
        _ = try blocker.run("ROLLBACK", [])
    }
}
