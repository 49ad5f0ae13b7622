/// A store that can keep persistent history (when added with `NSPersistentHistoryTrackingKey`):
/// every save and batch request records a transaction with its changes.
package protocol HistoryTrackingStore: OpenableStore {
    /// Whether the store records persistent history with every write (its options asked for it).
    var tracksPersistentHistory: Bool { get }
    /// The transactions `boundary` selects, oldest first. With `withChanges`, their changes too,
    /// each handed to `change` as it is read with the position of its transaction in the result,
    /// a transaction's changes in key order: 100,000 changes kept in an array of records on the
    /// way cost their reader more than SQLite took to read them.
    ///
    /// - Parameters:
    ///   - boundary: Which transactions.
    ///   - withChanges: Whether to read their changes.
    ///   - change: Receives each change with its transaction's position.
    /// - Returns: The transactions.
    /// - Throws: The store's errors.
    func fetchHistory(
        _ boundary: HistoryBoundary, withChanges: Bool, change: (Int, HistoryChangeRecord) -> Void
    ) throws -> [HistoryTransactionRecord]
    /// Deletes the transactions `boundary` selects with their changes.
    ///
    /// - Parameter boundary: Which transactions.
    /// - Returns: How many were deleted.
    /// - Throws: The store's errors.
    func deleteHistory(_ boundary: HistoryBoundary) throws -> Int
    /// The numbers of the oldest and the newest transaction kept; nil when there is none.
    ///
    /// - Throws: The store's errors.
    func historyRange() throws -> ClosedRange<Int64>?
    /// The highest transaction number the store has used, kept or deleted since (0 for none).
    ///
    /// - Throws: The store's errors.
    func lastHistoryNumber() throws -> Int64
}
