import Testing
@testable import OpenCoreData

/// The SQLite store reads on a pool of WAL readers beside its one writer: a fetch never waits for
/// a save that is in progress.
@Suite struct ConcurrentReadTests {
    @Test func aFetchCompletesWhileASaveHoldsTheWriter() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("saved", forKey: "name")
            try stack.context.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = stack.coordinator
        let fetched = DispatchSemaphore(value: 0)
        let counts = Locked<[Int]>([])
        let store = stack.store as! SQLiteStore
        // Hold the writer inside a save-like transaction that has written a row it has not committed.
        try store.save { writer in
            let item = stack.coordinator.managedObjectModel.entitiesByName["TSPItem"]!
            let key = try writer.allocatePrimaryKeys(for: item, count: 1)
            try writer.insert(entity: item, primaryKey: key, values: RowValues(slots: [.string("uncommitted"), .null, .null]))
            reader.perform {
                let count = (try? reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))) ?? -1
                counts.withLock { $0.append(count) }
                fetched.signal()
            }
            // The read finishes while this transaction is still open, and sees only committed rows.
            #expect(fetched.wait(timeout: .now() + 5) == .success)
        }
        #expect(counts.withLock { $0 } == [1])
        let after = try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
        #expect(after == 2)
    }
}
