/// What `NSManagedObjectContext.execute(_:)` returns: the base of the batch and asynchronous
/// results (`NSBatchUpdateResult`, `NSBatchDeleteResult`, `NSBatchInsertResult`,
/// `NSAsynchronousFetchResult`).
open class NSPersistentStoreResult: NSObject {
    /// Creates an empty result; the concrete result classes call it.
    override public init() { super.init() }
}

/// A request that `execute(_:)` can run. Each request kind conforms in its own file, so the
/// context's entry point does not grow a case per kind.
protocol ContextExecutableRequest: NSPersistentStoreRequest {
    /// Runs the request for `context`; called on the context's queue.
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult
}
