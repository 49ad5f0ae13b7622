import Foundation
import Testing
@testable import OpenCoreData

/// A cancellation stops a million-row read in SQLite itself, by each of the three ways the
/// asynchronous fetch can be cancelled, whether rows flow or SQLite is still sorting.
///
/// How fast it stops (the 50 ms target) and how long the context waits meanwhile (the 5 ms
/// target) are timings: they are measured by the benchmark suite (`bench`, "Responsiveness"
/// in docs/performance.md), not asserted here, where a loaded machine would make them flaky.
@Suite(.serialized) struct AsynchronousFetchInterruptionTests {
    /// Rows in the store: a million, so that no read can finish before its cancellation lands;
    /// `OPENCOREDATA_ASYNC_ROWS` overrides it.
    static let rows = ProcessInfo.processInfo.environment["OPENCOREDATA_ASYNC_ROWS"].flatMap(Int.init) ?? 1_000_000

    /// How a test cancels a running fetch.
    enum Cancellation: String, CaseIterable, CustomStringConvertible {
        case result = "result.cancel()"
        case progress = "result.progress.cancel()"
        case parentProgress = "parent.cancel()"
        var description: String { rawValue }
    }

    @Test func cancellingInterruptsAMillionRowReadInSQLite() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(Self.rows)
        for how in Cancellation.allCases {
            for sorted in [false, true] {
                try cancel(how, sorted: sorted, stack: stack)
            }
        }
    }

    private func cancel(_ how: Cancellation, sorted: Bool, stack: TestStack) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        if sorted { fetchRequest.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)] }
        let (request, probe) = probedRequest(fetchRequest, context: context)
        let parent = Progress(totalUnitCount: 1)
        let result: NSAsynchronousFetchResult<NSManagedObject> = try context.performAndWait {
            parent.becomeCurrent(withPendingUnitCount: 1)
            defer { parent.resignCurrent() }
            return try context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
        }
        if sorted {
            // SQLite sorts a million rows before it returns the first: cancel once it runs the
            // statement, during the sort.
            #expect(result.monitor.waitUntilStatementRuns(timeout: .now() + 120))
        } else {
            let flowing = DispatchSemaphore(value: 0)
            result.observeCompletedUnitCount { count in if count >= 20_000 { flowing.signal() } }
            #expect(flowing.wait(timeout: .now() + 120) == .success)
        }
        switch how {
        case .result: result.cancel()
        case .progress: result.progress!.cancel()
        case .parentProgress: parent.cancel()
        }
        #expect(probe.wait())
        let error = result.operationError as NSError?
        let read = context.performAndWait { result.progress!.completedUnitCount }
        let registered = context.performAndWait { context.registry.count }
        #expect(result.finalResult == nil, "\(how), sorted: \(sorted)")
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSUserCancelledError)
        // The statement was stopped in SQLite (SQLITE_INTERRUPT), not left to run to its end.
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 9, "\(how), sorted: \(sorted): \(String(describing: error))")
        #expect(read < Self.rows)
        #expect(registered == 0)
        #expect(result.progress!.isCancelled)
        #expect(probe.calls == 1)
    }
}
