import Foundation
import Testing
@testable import OpenCoreData

/// The batches after the one in use are read on another thread (and by the context while it
/// would wait): every object still gets its own row, and a write through the store after a batch
/// was read ahead is seen when that batch is used.
@Suite struct BatchReadAheadTests {
    /// 400 items "Item 0"… and a context holding a `fetchBatchSize = 50` result of them, whose
    /// first object has fired (so batches 1 to 3 are being read ahead).
    private func iteratedStore(_ directory: TemporaryDirectory) throws -> (TestStack, [NSManagedObject]) {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let objects = try context.performAndWait {
            for index in 0..<400 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("Item \(index)", forKey: "name")
            }
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.fetchBatchSize = 50
            let objects = try context.fetch(request)
            _ = objects[0].value(forKey: "name")
            return objects
        }
        return (stack, objects)
    }

    /// The read of the batch holding `object`, once it is done: the rows are then in memory,
    /// older than any write that follows.
    private func waitForReadAhead(of object: NSManagedObject, in context: NSManagedObjectContext) throws -> PendingRows {
        let pending = context.performAndWait { object.fetchBatch?.pending }
        let read = try #require(pending, "the batch after the first one is read ahead on two cores")
        _ = read.wait()
        return read
    }

    @Test func everyBatchReadAheadFillsItsOwnObjects() throws {
        let directory = TemporaryDirectory()
        let (stack, objects) = try iteratedStore(directory)
        let context = stack.context
        let (names, readAhead) = context.performAndWait {
            let readAhead = (1...3).map { objects[$0 * 50].fetchBatch?.pending != nil }
            return (objects.map { $0.value(forKey: "name") as? String }, readAhead)
        }
        #expect(names == (0..<400).map { "Item \($0)" })
        #expect(readAhead == [Bool](repeating: SecondThread.helps, count: 3))
    }

    @Test(.enabled(if: SecondThread.helps, "reads ahead on two cores only")) func aSaveAfterTheReadAheadIsSeen() throws {
        let directory = TemporaryDirectory()
        let (stack, objects) = try iteratedStore(directory)
        _ = try waitForReadAhead(of: objects[60], in: stack.context)
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        try other.performAndWait {
            let item = try other.existingObject(with: objects[60].objectID)
            item.setValue("Renamed", forKey: "name")
            try other.save()
        }
        let (renamed, neighbour) = stack.context.performAndWait {
            (objects[60].value(forKey: "name") as? String, objects[61].value(forKey: "name") as? String)
        }
        #expect(renamed == "Renamed")
        #expect(neighbour == "Item 61")
    }

    @Test(.enabled(if: SecondThread.helps, "reads ahead on two cores only")) func aBatchUpdateAfterTheReadAheadIsSeen() throws {
        let directory = TemporaryDirectory()
        let (stack, objects) = try iteratedStore(directory)
        _ = try waitForReadAhead(of: objects[120], in: stack.context)
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        try other.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "TSPItem")
            update.propertiesToUpdate = ["done": true]
            _ = try other.execute(update)
        }
        let done = stack.context.performAndWait { objects[120].value(forKey: "done") as? Bool }
        #expect(done == true)
    }

    /// Removing the store waits for a read under way and stops the queued ones, which then leave
    /// the closed pool alone.
    @Test(.enabled(if: SecondThread.helps, "reads ahead on two cores only")) func removingTheStoreStopsTheReadsAhead() throws {
        let directory = TemporaryDirectory()
        let (stack, objects) = try iteratedStore(directory)
        let pending = stack.context.performAndWait { (1...3).compactMap { objects[$0 * 50].fetchBatch?.pending } }
        try stack.coordinator.remove(stack.store)
        #expect(pending.count == 3)
        for read in pending { _ = read.wait() }
        #expect(stack.coordinator.persistentStores.isEmpty)
    }

    @Test func aReadRunsOnceOnWhicheverThreadClaimsIt() throws {
        let runs = Counter()
        let pending = PendingRows(writes: 0) {
            runs.increment()
            return [StoreRow(entityNumber: 1, primaryKey: 7, version: 1, values: nil)]
        }
        #expect(pending.isFinished == false)
        #expect(pending.runIfUnclaimed())
        #expect(pending.runIfUnclaimed() == false)
        #expect(pending.isFinished)
        #expect(pending.wait()?.map(\.primaryKey) == [7])
        #expect(runs.value == 1)

        let failing = PendingRows(writes: 0) { throw CocoaError(.fileReadCorruptFile) }
        let thread = Thread { failing.runIfUnclaimed() }
        thread.start()
        #expect(failing.wait() == nil)
    }
}

/// A count touched by one thread at a time.
private final class Counter: @unchecked Sendable {
    // @unchecked Sendable: the tests above touch it from the thread that runs the read only.
    private(set) var value = 0
    func increment() { value += 1 }
}
