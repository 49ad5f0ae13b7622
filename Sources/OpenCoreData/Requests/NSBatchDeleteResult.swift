/// What `execute(_:)` returns for an `NSBatchDeleteRequest`.
open class NSBatchDeleteResult: NSPersistentStoreResult {
    /// `true` (an `NSNumber`), the `[NSManagedObjectID]` of the deleted objects, or their count
    /// (an `NSNumber`), as the request's `resultType` asked. Objects deleted by a cascade rule are
    /// included.
    open private(set) var result: Any?
    /// The request's result type.
    open private(set) var resultType: NSBatchDeleteRequestResultType

    init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
