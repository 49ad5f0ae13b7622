import Foundation
import Testing
@testable import OpenCoreData

/// `fetchAsynchronously(_:)`: the async/await form of an asynchronous fetch.
@Suite struct AsynchronousFetchAsyncAwaitTests {
    @Test func returnsTheObjectsRegisteredInTheContextAndReportsProgress() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(4_500)
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
        let counts = Locked<[Int64]>([])
        let items = try await stack.context.fetchAsynchronously(request, estimatedResultCount: 4_500) { completed in
            counts.withLock { $0.append(completed) }
        }
        #expect(items.count == 4_500)
        // The context's objects, read on its queue only: the block is `@Sendable`, as Core Data's.
        nonisolated(unsafe) let fetched = items
        let (first, registered) = await stack.context.perform {
            (fetched[0].value(forKey: "name") as? String, stack.context.registeredObject(for: fetched[0].objectID) === fetched[0])
        }
        #expect(first == "Item 1")
        #expect(registered)
        #expect(counts.withLock { $0 }.last == 4_500)
    }

    @Test func cancellingTheTaskInterruptsTheFetchAndThrowsCancellationError() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let rows = 300_000
        try stack.insertItems(rows)
        let context = stack.context
        let read = Locked<Int64>(0)
        let fetching = Locked<Task<Int, any Error>?>(nil)
        // The task is cancelled from the progress handler, on the context's queue, once rows flow:
        // a test waiting for them, blocked (a semaphore on one of the cooperative pool's two
        // threads starved the fetch's task) or suspended (resumed after the fetch had ended, on
        // a loaded machine), raced the fetch.
        let task = Task {
            try await context.fetchAsynchronously(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) { completed in
                read.withLock { $0 = completed }
                if completed >= 5_000 { fetching.withLock { $0 }?.cancel() }
            }.count
        }
        fetching.withLock { $0 = task }
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        // The read stopped part way: the statement was interrupted, not run to the end. (How fast is
        // the benchmark suite's Responsiveness section's business; here the Task's resumption also waits for
        // the cooperative pool, which the other tests keep busy.)
        #expect(read.withLock { $0 } < Int64(rows))
        #expect(await context.perform { context.registeredObjects.isEmpty })
    }

    @Test func aTaskCancelledBeforeItStartsFetchesNothing() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(100)
        let context = stack.context
        let gate = DispatchSemaphore(value: 0)
        let task = Task {
            gate.wait()
            return try await context.fetchAsynchronously(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).count
        }
        task.cancel()
        gate.signal()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await context.perform { context.registeredObjects.isEmpty })
    }

    @Test func errorsOfExecuteAreThrown() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let confined = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        confined.persistentStoreCoordinator = stack.coordinator
        let error = await #expect(throws: NSError.self) {
            try await confined.fetchAsynchronously(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
        }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
    }
}
