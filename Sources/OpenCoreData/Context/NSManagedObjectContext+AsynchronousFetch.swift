/// Asynchronous fetching: `execute(_:)` with an `NSAsynchronousFetchRequest`, and its async/await
/// form.
extension NSManagedObjectContext {
    /// Checks that this context can run `request` asynchronously and starts it
    /// (`AsynchronousFetchOperation`); returns its result before any row is read.
    func startAsynchronousFetch<T>(_ request: NSAsynchronousFetchRequest<T>) throws -> NSAsynchronousFetchResult<T> {
        assertOnQueue("execute(_:)")
        guard concurrencyType != .confinementConcurrencyType else {
            // Core Data raises an exception with this text; here it is a thrown error.
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "NSConfinementConcurrencyType context \(self) cannot support asynchronous fetch request \(request) with fetch request \(request.fetchRequest).")
        }
        guard parent == nil else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "Asynchronous fetch requests are not supported in a child context (one with a parent context): execute \(request) in a context connected to the persistent store coordinator, or use fetch(_:) in the child.")
        }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        let operation = try AsynchronousFetchOperation(request, context: self, coordinator: coordinator)
        operation.start()
        return operation.result
    }

    /// OpenCoreData: fetches `request` as an `NSAsynchronousFetchRequest` does (on a reader
    /// connection, the context free meanwhile) and returns the objects, registered in this
    /// context; use them on its queue, as any fetched object.
    ///
    /// Cancelling the calling Task cancels the fetch as `cancel()` on its result does: the SQLite
    /// statement is interrupted, nothing is registered, and this throws `CancellationError`.
    ///
    /// - Parameters:
    ///   - request: The fetch request to run, wrapped in an `NSAsynchronousFetchRequest`.
    ///   - estimatedResultCount: as `NSAsynchronousFetchRequest.estimatedResultCount`.
    ///   - progress: called on the context's queue with the number of rows read so far, as the
    ///     result's `observeCompletedUnitCount(_:)` is.
    /// - Returns: The fetched results, of the request's result type; an empty array when the fetch
    ///   finished without a result.
    /// - Throws: what `execute(_:)` throws, the fetch's `operationError`, or `CancellationError`.
    public func fetchAsynchronously<T>(
        _ request: NSFetchRequest<T>, estimatedResultCount: Int = 0, progress: (@Sendable (Int64) -> Void)? = nil
    ) async throws -> [T] {
        try Task.checkCancellation()
        let started = Locked(AsyncFetchStart())
        let request = UncheckedTransfer(request)
        let fetched: UncheckedTransfer<[T]> = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                perform { [self] in
                    let asynchronous = NSAsynchronousFetchRequest(fetchRequest: request.value) { result in
                        if let error = result.operationError {
                            let cancelled = started.withLock { $0.taskCancelled } && (error as NSError).code == NSUserCancelledError
                            continuation.resume(throwing: cancelled ? CancellationError() : error)
                        } else {
                            continuation.resume(returning: UncheckedTransfer(result.finalResult ?? []))
                        }
                    }
                    asynchronous.estimatedResultCount = estimatedResultCount
                    do {
                        let result = try execute(asynchronous) as! NSAsynchronousFetchResult<T>
                        if let progress { result.observeCompletedUnitCount(progress) }
                        let cancelNow = started.withLock { state in
                            state.result = result
                            return state.taskCancelled
                        }
                        if cancelNow { result.cancel() }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            let result = started.withLock { state in
                state.taskCancelled = true
                return state.result
            }
            result?.cancel()
        }
        return fetched.value
    }
}

/// What `fetchAsynchronously` and its Task's cancellation handler share: the cancellation may come
/// before the fetch has a result to cancel.
private struct AsyncFetchStart: @unchecked Sendable {
    // @unchecked Sendable: only touched inside `Locked`.
    var result: NSPersistentStoreAsynchronousResult?
    var taskCancelled = false
}
