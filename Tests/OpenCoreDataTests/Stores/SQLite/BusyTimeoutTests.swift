import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Another connection or process holding the store's write lock: a save waits for it, and when
/// the wait is over it fails with Core Data's timeout error, changing nothing.
@Suite struct BusyTimeoutTests {
    /// A stack on `url` whose store waits `timeout` seconds for a lock.
    private func stack(at url: URL, timeout: Double) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreTimeoutOption: timeout])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    private func insert(_ name: String, into context: NSManagedObjectContext) {
        NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context).setValue(name, forKey: "name")
    }

    /// Takes the write lock of the store at `url` on a connection of its own, as another process
    /// would, and holds it on another thread until `release` returns.
    ///
    /// - Returns: Once the lock is held; the semaphore is signalled when it is given up.
    private func holdWriteLock(on url: URL, until release: @escaping @Sendable () -> Void) throws -> DispatchSemaphore {
        let other = try DatabaseQueue(path: url.path)
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                holding.signal()
                release()
                try db.execute(sql: "COMMIT")
            }
            released.signal()
        }
        holding.wait()
        return released
    }

    @Test func aSaveWaitsForAnotherConnectionsWriteToEnd() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Todo.sqlite")
        let (_, context) = try stack(at: url, timeout: 30)
        // Another connection, as another process would have, holds the write lock for 300 ms.
        let released = try holdWriteLock(on: url) { Thread.sleep(forTimeInterval: 0.3) }
        try context.performAndWait {
            insert("milk", into: context)
            try context.save()
        }
        released.wait()
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) } == 1)
    }

    @Test func aLockHeldPastTheTimeoutIsCoreDatasTimeoutErrorAndNothingIsSaved() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Todo.sqlite")
        let (_, context) = try stack(at: url, timeout: 0.2)
        let finish = DispatchSemaphore(value: 0)
        let released = try holdWriteLock(on: url) { finish.wait() }
        let error = context.performAndWait { () -> NSError? in
            insert("milk", into: context)
            do {
                try context.save()
                return nil
            } catch {
                return error as NSError
            }
        }
        finish.signal()
        released.wait()
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSPersistentStoreTimeoutError)
        #expect(error?.localizedDescription.contains(url.path) == true, "\(String(describing: error))")
        // The object is still inserted in the context, and a save once the lock is gone works.
        try context.performAndWait {
            #expect(context.insertedObjects.count == 1)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 1)
        }
    }

    @Test func theTimeoutComesFromTheOptionOrTheDescriptionsDefault() {
        #expect(SQLiteStore.timeout(in: nil) == 240)
        #expect(SQLiteStore.timeout(in: [NSPersistentStoreTimeoutOption: 5]) == 5)
        #expect(SQLiteStore.timeout(in: [NSPersistentStoreTimeoutOption: NSNumber(value: 0.5)]) == 0.5)
        #expect(SQLiteStore.timeout(in: [NSPersistentStoreTimeoutOption: Double.nan]) == 240)
        #expect(SQLiteStore.timeout(in: [NSPersistentStoreTimeoutOption: -1.0]) == 240)
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/x.sqlite"))
        description.timeout = 12
        #expect(SQLiteStore.timeout(in: description.storeOptions) == 12)
    }
}
