import Dispatch
import OpenCoreData

/// The tutorials' asynchronous fetch of every item, sorted by createdAt, with a `Progress` of one
/// unit current while it is executed, as `todo fetch --async` and `todo demo` run it.
final class AsynchronousFetch: @unchecked Sendable {
    // @unchecked Sendable: `lastCount` is only touched on the context's queue, where the progress
    // handler and the completion block run.

    /// How a fetch ended.
    enum Outcome {
        case fetched([TSPItem])
        /// Cancelled after this many rows were read.
        case cancelled(Int)
    }

    /// The progress made current at `execute`: the fetch's own is its child, so cancelling this
    /// cancels the fetch.
    let progress = Progress(totalUnitCount: 1)
    private var lastCount = 0

    /// Runs the fetch in `context`. `onProgress` gets the number of rows read so far, on the
    /// context's queue, as a KVO observer of `completedUnitCount` would in the tutorials.
    func run(
        in managedObjectContext: NSManagedObjectContext, estimatedResultCount: Int,
        onProgress: @escaping @Sendable (Int) -> Void
    ) async throws -> Outcome {
        let outcome: UncheckedOutcome = try await withCheckedThrowingContinuation { continuation in
            managedObjectContext.perform { [self] in
                // Initialize Fetch Request
                let fetchRequest = TodoStore.itemsRequest()
                // Initialize Asynchronous Fetch Request
                let asynchronousFetchRequest = NSAsynchronousFetchRequest(fetchRequest: fetchRequest) { asynchronousFetchResult in
                    if let error = asynchronousFetchResult.operationError as NSError? {
                        if error.code == NSUserCancelledError {
                            continuation.resume(returning: UncheckedOutcome(.cancelled(self.lastCount)))
                        } else {
                            continuation.resume(throwing: error)
                        }
                    } else {
                        continuation.resume(returning: UncheckedOutcome(.fetched(asynchronousFetchResult.finalResult ?? [])))
                    }
                }
                asynchronousFetchRequest.estimatedResultCount = estimatedResultCount
                // Become Current
                progress.becomeCurrent(withPendingUnitCount: 1)
                defer { progress.resignCurrent() }
                do {
                    // Execute Asynchronous Fetch Request
                    let asynchronousFetchResult = try managedObjectContext.execute(asynchronousFetchRequest) as! NSPersistentStoreAsynchronousResult
                    // Follow completedUnitCount (KVO in the tutorials; a handler on Linux)
                    asynchronousFetchResult.observeCompletedUnitCount { [self] completed in
                        lastCount = Int(completed)
                        onProgress(Int(completed))
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return outcome.value
    }

    /// Carries the outcome's objects back from the context's queue; they are used on it again.
    private struct UncheckedOutcome: @unchecked Sendable {
        let value: Outcome
        init(_ value: Outcome) { self.value = value }
    }
}
