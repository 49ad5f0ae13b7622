/// What `execute(_:)` returns for an `NSAsynchronousFetchRequest`, at once, and what its
/// completion block receives later: the same object, with `finalResult` or `operationError` set.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult, @unchecked Sendable {
    // @unchecked Sendable: `results` is only touched under its lock.

    /// The request that produced this result.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    private let results = Locked<[ResultType]?>(nil)

    init(request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress, monitor: StoreReadMonitor) {
        fetchRequest = request
        super.init(context: context, progress: progress, monitor: monitor)
    }

    /// The fetched results, registered in `managedObjectContext` (use them on its queue); nil
    /// until the fetch has finished, and when it failed or was cancelled.
    open var finalResult: [ResultType]? { results.withLock { $0 } }

    /// Sets the results and ends the request; called on the context's queue.
    func succeed(with values: [ResultType]) {
        results.withLock { $0 = values }
        finish(error: nil)
    }

    override open var description: String {
        "<NSAsynchronousFetchResult: \(fetchRequest.fetchRequest.entityName ?? "?"), \(isFinished ? "finished" : "running")>"
    }
}
