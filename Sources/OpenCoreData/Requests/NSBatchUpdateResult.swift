/// What `execute(_:)` returns for an `NSBatchUpdateRequest`.
open class NSBatchUpdateResult: NSPersistentStoreResult {
    /// `true` (an `NSNumber`), the `[NSManagedObjectID]` of the updated objects, or their count
    /// (an `NSNumber`), as the request's `resultType` asked.
    open private(set) var result: Any?
    /// The request's result type.
    open private(set) var resultType: NSBatchUpdateRequestResultType

    init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
