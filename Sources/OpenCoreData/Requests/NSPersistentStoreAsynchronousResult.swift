/// The result of an asynchronous request: its context, its progress, its error once it failed,
/// and the way to cancel it. `NSAsynchronousFetchResult` adds the fetched objects.
///
/// Safe to use from any thread (`Sendable`): the tutorials hand it to the main queue. The objects
/// it carries still belong to the context's queue.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult, @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under its lock; `progress` is written only on
    // the context's queue (see `progressDidAdvance`); the rest is immutable.

    /// The context that executed the request; the completion block runs on its queue.
    public let managedObjectContext: NSManagedObjectContext
    private let reportedProgress: Progress
    let monitor: StoreReadMonitor
    private let state = Locked(State())

    private struct State {
        var error: (any Error)?
        var finished = false
        var observers: [Int: Observer] = [:]
        var nextObserver = 0
    }

    /// Someone following `completedUnitCount`, called on the context's queue.
    private enum Observer {
        case handler(UncheckedTransfer<(Int64) -> Void>)
        case stream(AsyncStream<Int64>.Continuation)
    }

    init(context: NSManagedObjectContext, progress: Progress, monitor: StoreReadMonitor) {
        managedObjectContext = context
        reportedProgress = progress
        self.monitor = monitor
        super.init()
    }

    /// Why the request failed: `NSUserCancelledError` (3072) when it was cancelled, or the store's
    /// error; nil while it runs and when it succeeded.
    open var operationError: (any Error)? { state.withLock { $0.error } }

    /// The request's progress: `completedUnitCount` is the number of rows read so far, rising in
    /// steps of at most 1,000 rows or 50 ms, and `totalUnitCount` the request's
    /// `estimatedResultCount`, or -1 (unknown) until the end; both end at the number of results.
    /// When a `Progress` was current at `execute(_:)`, this is its child for the pending unit
    /// count. Cancelling it, or its parent, cancels the request.
    ///
    /// Never nil in OpenCoreData (Core Data may return nil). On Linux, read its counts on the
    /// context's queue, where they change, or follow them with `completedUnitCounts` or
    /// `observeCompletedUnitCount(_:)`: Foundation's `Progress` there has no KVO and no locking.
    open var progress: Progress? { reportedProgress }

    /// Cancels the request: a running SQLite statement is interrupted, nothing it read is
    /// registered in the context, and the completion block receives `NSUserCancelledError`.
    /// Does nothing once the request has finished.
    open func cancel() {
        monitor.cancel()
        reportedProgress.cancel()
    }

    // MARK: Following progress without KVO (OpenCoreData)

    /// OpenCoreData: the progress's `completedUnitCount`: its value when you ask, then every new
    /// value, ending when the request finishes (successfully or not). The replacement, on Linux,
    /// for observing `progress.completedUnitCount` with KVO.
    ///
    /// ```swift
    /// for await fetched in result.completedUnitCounts { print("Fetched \(fetched) records") }
    /// ```
    public var completedUnitCounts: AsyncStream<Int64> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int64.self)
        let id = addObserver(.stream(continuation))
        continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        return stream
    }

    /// OpenCoreData: calls `handler` on the context's queue with the progress's
    /// `completedUnitCount`, first its current value, then each new value until the request
    /// finishes: what a KVO observer of `progress.completedUnitCount` would see, without KVO.
    ///
    /// - Parameter handler: Receives the number of rows read so far, on the context's queue: once
    ///   with the current count when it is added, then with each new count. It is kept until the
    ///   request finishes.
    public func observeCompletedUnitCount(_ handler: @escaping (Int64) -> Void) {
        addObserver(.handler(UncheckedTransfer(handler)))
    }

    /// Adds the observer on the context's queue, so that it sees the current count and every later
    /// one in order.
    @discardableResult
    private func addObserver(_ observer: Observer) -> Int {
        let id = state.withLock { state in
            state.nextObserver += 1
            return state.nextObserver
        }
        let register = { @Sendable [self] in
            let finished = state.withLock { state in
                if !state.finished { state.observers[id] = observer }
                return state.finished
            }
            let count = reportedProgress.completedUnitCount
            switch observer {
            case .handler(let handler): handler.value(count)
            case .stream(let continuation):
                continuation.yield(count)
                if finished { continuation.finish() }
            }
        }
        let context = managedObjectContext
        if context.isOnQueue { register() } else { context.perform(register) }
        return id
    }

    private func removeObserver(_ id: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    // MARK: Driven by the request, on the context's queue

    /// Sets `completedUnitCount` (and `totalUnitCount`, when given) and tells the observers.
    func progressDidAdvance(completed: Int64, total: Int64? = nil) {
        if let total, reportedProgress.totalUnitCount != total { reportedProgress.totalUnitCount = total }
        // A count can only rise: a report queued before a later one never lowers it.
        guard completed > reportedProgress.completedUnitCount else { return }
        reportedProgress.completedUnitCount = completed
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers {
            switch observer {
            case .handler(let handler): handler.value(completed)
            case .stream(let continuation): continuation.yield(completed)
            }
        }
    }

    /// Records how the request ended and lets the observers go.
    func finish(error: (any Error)?) {
        let observers = state.withLock { state in
            state.error = error
            state.finished = true
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for case .stream(let continuation) in observers { continuation.finish() }
    }

    /// Whether the request has ended.
    var isFinished: Bool { state.withLock { $0.finished } }
}
