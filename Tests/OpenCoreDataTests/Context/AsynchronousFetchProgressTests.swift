import Foundation
import Testing
@testable import OpenCoreData

/// The progress of an asynchronous fetch: its counts, its place in a `Progress` tree, and the two
/// ways to follow it without KVO.
@Suite struct AsynchronousFetchProgressTests {
    /// Foundation's `Progress` on Linux does what the tutorials rely on: a progress created while
    /// another is current becomes its child for the pending count, finishing the child completes
    /// that count, and cancelling the parent cancels the child and calls its handler.
    @Test func foundationsProgressAdoptsAChildWhileCurrentAndPassesCancellationDown() {
        let parent = Progress(totalUnitCount: 1)
        parent.becomeCurrent(withPendingUnitCount: 1)
        let child = Progress(totalUnitCount: -1)
        parent.resignCurrent()
        let unrelated = Progress(totalUnitCount: 10)
        #expect(child.isIndeterminate)
        child.totalUnitCount = 4
        child.completedUnitCount = 2
        #expect(parent.fractionCompleted == 0.5)
        child.completedUnitCount = 4
        #expect(parent.completedUnitCount == 1)
        #expect(parent.isFinished)

        let other = Progress(totalUnitCount: 1)
        other.becomeCurrent(withPendingUnitCount: 1)
        let running = Progress(totalUnitCount: -1)
        other.resignCurrent()
        let called = DispatchSemaphore(value: 0)
        running.cancellationHandler = { called.signal() }
        other.cancel()
        #expect(running.isCancelled)
        #expect(called.wait(timeout: .now() + 5) == .success)
        #expect(!unrelated.isCancelled)
    }

    @Test func completedUnitCountRisesInStepsOfAtMost1000RowsAndEndsAtTheResultCount() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(25_500)
        let context = stack.context
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: context)
        let seen = Locked<[(completed: Int64, total: Int64, onQueue: Bool)]>([])
        let result: NSAsynchronousFetchResult<NSManagedObject> = try context.performAndWait {
            let result = try context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
            // As a KVO observer added right after execute, in the same block, as the tutorial does.
            result.observeCompletedUnitCount { completed in
                seen.withLock { $0.append((completed, result.progress!.totalUnitCount, context.isOnQueue)) }
            }
            return result
        }
        var streamed: [Int64] = []
        for await completed in result.completedUnitCounts { streamed.append(completed) }
        #expect(probe.wait())
        let handled = seen.withLock { $0 }
        let counts = handled.map(\.completed)
        #expect(counts.first == 0)
        #expect(counts.last == 25_500)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 <= 1_000 })
        #expect(counts.count >= 26)
        #expect(handled.allSatisfy { $0.onQueue })
        // Unknown while the fetch runs.
        #expect(handled.dropLast().allSatisfy { $0.total == -1 })
        // The stream sees the same counts from where it joined, and ends with the fetch.
        #expect(streamed.last == 25_500)
        #expect(zip(streamed, streamed.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 <= 1_000 })
        let (completed, total, finished) = context.performAndWait {
            (result.progress!.completedUnitCount, result.progress!.totalUnitCount, result.progress!.isFinished)
        }
        #expect(completed == 25_500)
        #expect(total == 25_500)
        #expect(finished)
        // Joining after the end: the final count, then the end.
        var late: [Int64] = []
        for await completed in result.completedUnitCounts { late.append(completed) }
        #expect(late == [25_500])
    }

    @Test func estimatedResultCountIsTheTotalWhileTheFetchRuns() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(12_000)
        for estimate in [20_000, 5_000] {
            let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: stack.context)
            request.estimatedResultCount = estimate
            let seen = Locked<[(completed: Int64, total: Int64, finished: Bool)]>([])
            let result: NSAsynchronousFetchResult<NSManagedObject> = try stack.context.performAndWait {
                let result = try stack.context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
                #expect(result.progress?.totalUnitCount == Int64(estimate))
                result.observeCompletedUnitCount { completed in
                    let progress = result.progress!
                    seen.withLock { $0.append((completed, progress.totalUnitCount, progress.isFinished)) }
                }
                return result
            }
            #expect(probe.wait())
            let running = seen.withLock { $0 }.dropLast()
            #expect(running.count >= 11)
            // The estimate while it holds; above the count once the rows outnumber it, so that the
            // progress never finishes before the results exist.
            #expect(running.allSatisfy { $0.total == max(Int64(estimate), $0.completed + 1) && !$0.finished })
            #expect(stack.context.performAndWait { result.progress!.totalUnitCount } == 12_000)
        }
    }

    @Test func theProgressIsAChildOfTheProgressCurrentAtExecute() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(5_000)
        let context = stack.context
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: context)
        let (parent, result, before) = try context.performAndWait {
            let parent = Progress(totalUnitCount: 4)
            parent.becomeCurrent(withPendingUnitCount: 2)
            let result = try context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
            parent.resignCurrent()
            return (parent, result, parent.fractionCompleted)
        }
        #expect(before == 0)
        #expect(probe.wait())
        let (completed, fraction) = context.performAndWait { (parent.completedUnitCount, parent.fractionCompleted) }
        // The fetch's progress was worth 2 of the parent's 4 units.
        #expect(completed == 2)
        #expect(fraction == 0.5)

        // Without a current progress the result still has one, attached to nothing.
        let (alone, aloneProbe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: context)
        let aloneResult = try execute(alone, in: context)
        #expect(aloneResult.progress != nil)
        #expect(aloneProbe.wait())
        #expect(context.performAndWait { aloneResult.progress?.completedUnitCount } == 5_000)
        #expect(context.performAndWait { parent.completedUnitCount } == 2)
        _ = result
    }
}
