/// What an asynchronous fetch request calls when it ends, in Core Data's untyped spelling.
public typealias NSPersistentStoreAsynchronousFetchResultCompletionBlock = (NSAsynchronousFetchResult<NSFetchRequestResult>) -> Void

/// A fetch that runs without blocking its context: `execute(_:)` returns an
/// `NSAsynchronousFetchResult` at once, the rows are read on a reader connection of the store
/// while the context keeps working, and `completionBlock` later receives that same result, on the
/// context's queue, with the objects registered in the context or an error.
///
/// ```swift
/// let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
/// request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
/// let asynchronousRequest = NSAsynchronousFetchRequest(fetchRequest: request) { result in
///     guard let items = result.finalResult else { return }
///     // On the context's queue: use the items here.
/// }
/// try context.execute(asynchronousRequest)
/// ```
///
/// `ResultType` is unconstrained, as `NSFetchRequest`'s is (see there).
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called once on the context's queue when the fetch has finished, failed or been cancelled.
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// How many results you expect; when positive it is the progress's `totalUnitCount` while the
    /// fetch runs (otherwise the total is unknown, -1, until the end).
    open var estimatedResultCount: Int = 0
    /// How long, in nanoseconds, registering the results holds the context's queue before it lets
    /// other blocks run; tests shorten it to interleave their own blocks with every step.
    var registrationSlice: UInt64 = 250_000

    /// Creates a request that runs `request` asynchronously and hands its result to `blk`.
    ///
    /// - Parameters:
    ///   - request: The fetch to run; its `affectedStores` are the request's.
    ///   - blk: Called once, on the context's queue, when the fetch has finished, failed or been
    ///     cancelled. It receives the same `NSAsynchronousFetchResult` that `execute(_:)` returned,
    ///     with `finalResult` set on success and `operationError` on failure. `nil` for no callback.
    public init(
        fetchRequest request: NSFetchRequest<ResultType>,
        completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil
    ) {
        fetchRequest = request
        completionBlock = blk
        super.init()
    }

    override open var affectedStores: [NSPersistentStore]? {
        get { fetchRequest.affectedStores }
        set { fetchRequest.affectedStores = newValue }
    }

    override open var description: String {
        "<NSAsynchronousFetchRequest: \(fetchRequest)>"
    }
}

extension NSAsynchronousFetchRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.startAsynchronousFetch(self)
    }
}
