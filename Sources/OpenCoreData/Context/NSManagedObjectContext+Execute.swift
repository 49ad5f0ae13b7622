/// `execute(_:)`: the entry point of batch and asynchronous requests.
extension NSManagedObjectContext {
    /// Runs a batch update, delete or insert request, or an asynchronous fetch request, and
    /// returns its result.
    ///
    /// - Parameter request: An `NSBatchUpdateRequest`, `NSBatchDeleteRequest`, `NSBatchInsertRequest`
    ///   or `NSAsynchronousFetchRequest`. Plain fetch requests go through `fetch(_:)` instead.
    /// - Returns: The request's result: an `NSBatchUpdateResult`, `NSBatchDeleteResult` or
    ///   `NSBatchInsertResult` holding what its `resultType` asked for, or the
    ///   `NSAsynchronousFetchResult` of a fetch that has just started.
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` (134091) for a request this
    ///   context or its stores cannot run, or the request's own error.
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        guard let executable = request as? any ContextExecutableRequest else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "execute(_:) does not run requests of type \(type(of: request)); use fetch(_:) for fetch requests and save() for saves.")
        }
        return try executable.execute(in: self)
    }
}
