/// What `execute(_:)` returns for an `NSBatchInsertRequest`.
open class NSBatchInsertResult: NSPersistentStoreResult {
    /// `true` (an `NSNumber`), the `[NSManagedObjectID]` of the inserted objects, or their count
    /// (an `NSNumber`), as the request's `resultType` asked. Existing rows a merge policy updated
    /// instead of inserting are counted once.
    open private(set) var result: Any?
    /// The request's result type.
    open private(set) var resultType: NSBatchInsertRequestResultType

    init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
