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
    private func waitForReadAhead(of object: NSManagedObject, in context: NSManagedObjectContext) throws {
        let pending = context.performAndWait { object.fetchBatch?.pending }
        try #require(pending, "the batch after the first one is read ahead on two cores").waitUntilFinished()
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
        try waitForReadAhead(of: objects[60], in: stack.context)
        let other = BatchFixtures.context(stack.coordinator, "other")
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
        try waitForReadAhead(of: objects[120], in: stack.context)
        let other = BatchFixtures.context(stack.coordinator, "other")
        try other.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "TSPItem")
            update.propertiesToUpdate = ["done": true]
            _ = try other.execute(update)
        }
        let done = stack.context.performAndWait { objects[120].value(forKey: "done") as? Bool }
        #expect(done == true)
    }

    /// Another coordinator's save does not pass through this store: the context learns of it by a
    /// refresh or a merge, which must not fill the object from rows read before it.
    @Test(.enabled(if: SecondThread.helps, "reads ahead on two cores only"), arguments: [false, true])
    func aRefreshOrMergeAfterAnotherCoordinatorSavedReadsTheBatchAgain(merging: Bool) throws {
        let directory = TemporaryDirectory()
        let (stack, objects) = try iteratedStore(directory)
        try waitForReadAhead(of: objects[60], in: stack.context)
        let other = try stack.reopened()
        try other.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "name == 'Item 60'")
            let item = try #require(try other.context.fetch(request).first)
            item.setValue("Renamed", forKey: "name")
            try other.context.save()
        }
        let id = stack.context.performAndWait { objects[60].objectID }
        if merging {
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [id]], into: [stack.context])
        } else {
            stack.context.performAndWait { stack.context.refresh(objects[60], mergeChanges: false) }
        }
        let (renamed, neighbour) = stack.context.performAndWait {
            (objects[60].value(forKey: "name") as? String, objects[61].value(forKey: "name") as? String)
        }
        #expect(renamed == "Renamed")
        #expect(neighbour == "Item 61")
    }

    /// Reading in order again after a jump reads ahead from there, and the rows read ahead for
    /// the batches left behind are let go: at most three batches' rows wait at a time.
    @Test func jumpingAwayLetsGoOfTheRowsReadAhead() throws {
        let directory = TemporaryDirectory()
        let (stack, objects) = try iteratedStore(directory)
        let context = stack.context
        let (before, after, names) = context.performAndWait {
            let before = (1...3).map { objects[$0 * 50].fetchBatch?.pending != nil }
            _ = objects[200].value(forKey: "name")  // batch 4, out of order: reads nothing ahead
            _ = objects[250].value(forKey: "name")  // batch 5, in order again: reads 6 and 7 ahead
            let after = (1...7).map { objects[$0 * 50].fetchBatch?.pending != nil }
            return (before, after, objects.map { $0.value(forKey: "name") as? String })
        }
        let helps = SecondThread.helps
        #expect(before == [helps, helps, helps])
        #expect(after == [false, false, false, false, false, helps, helps])
        #expect(names == (0..<400).map { "Item \($0)" })
    }

    /// Removing the store while batches are queued to be read ahead waits for those reads (they
    /// run before the pool closes) and hangs on none of them.
    @Test(.enabled(if: SecondThread.helps, "reads ahead on two cores only")) func removingTheStoreStopsTheReadsAhead() throws {
        let directory = TemporaryDirectory()
        let (stack, objects) = try iteratedStore(directory)
        let pending = stack.context.performAndWait { (1...3).compactMap { objects[$0 * 50].fetchBatch?.pending } }
        try stack.coordinator.remove(stack.store)
        #expect(pending.count == 3)
        for read in pending { read.waitUntilFinished() }
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
        #expect(pending.take()?.map(\.primaryKey) == [7])
        #expect(pending.take() == nil, "the rows are taken out, not copied")
        #expect(runs.value == 1)

        let failing = PendingRows(writes: 0) { throw CocoaError(.fileReadCorruptFile) }
        let thread = Thread { failing.runIfUnclaimed() }
        thread.start()
        #expect(failing.take() == nil)
    }
}

/// A count touched by one thread at a time.
private final class Counter: @unchecked Sendable {
    // @unchecked Sendable: the tests above touch it from the thread that runs the read only.
    private(set) var value = 0
    func increment() { value += 1 }
}
