/// A store that runs `NSBatchUpdateRequest`, `NSBatchDeleteRequest` and `NSBatchInsertRequest`
/// itself, as one statement or transaction that never touches the object graph. Core Data runs
/// them only in its SQLite store; a store that is not one refuses them (134091), checked for every
/// target store before any of them writes.
package protocol BatchRequestStore: OpenableStore {
    /// Runs a batch update.
    ///
    /// - Parameter request: What to update, store-neutral.
    /// - Returns: What the request's result type asks for.
    /// - Throws: A Core Data error; nothing is written then.
    func executeBatchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome
    /// Runs a batch delete, delete rules included.
    ///
    /// - Parameter request: What to delete, store-neutral.
    /// - Returns: What the request's result type asks for.
    /// - Throws: A Core Data error (a deny rule: 1600); nothing is deleted then.
    func executeBatchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome
    /// Runs a batch insert.
    ///
    /// - Parameter request: The rows to insert, read one at a time.
    /// - Returns: What the request's result type asks for.
    /// - Throws: A Core Data error; nothing is inserted then.
    func executeBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome
}
