import Foundation
import Synchronization

/// Reading the next batches of a `fetchBatchSize` fetch on another thread while the context uses
/// the current one: a batch's read is most of a batch's cycle, and on two cores the context's
/// registering and key-value reads then overlap it.
extension SQLiteStore {
    /// Queues a read of the rows of `primaryKeys` on the store's read-ahead queue; nil where a
    /// second thread would not help.
    func readAhead(of entity: NSEntityDescription, primaryKeys: [Int64]) -> PendingRows? {
        // A pinned context's generation is known on its own thread only.
        guard SecondThread.helps, pool != nil, pinnedSnapshot == nil else { return nil }
        let pending = PendingRows(writes: writes.load(ordering: .acquiring)) {
            try self.rows(of: entity, primaryKeys: primaryKeys)
        }
        readAheadQueue.async {
            // `close()` lets the reads queued before it finish, then stops the queue: one queued
            // after it (a race with the removal) leaves the closed pool alone.
            if self.readAheadStopped {
                pending.runIfUnclaimed { throw CoreDataError.make(NSCoreDataError, "The store was closed before a batch read ahead ran.") }
            } else {
                pending.runIfUnclaimed()
            }
        }
        return pending
    }

    /// The rows `pending` read, if no write through this store committed since it was queued;
    /// nil when the caller must read them again.
    func rowsReadAhead(_ pending: PendingRows) -> [StoreRow]? {
        let rows = pending.take()
        guard pending.writes == writes.load(ordering: .acquiring) else { return nil }
        return rows
    }

    /// Counts a committed write, after the commit: a read queued before it and taken after it
    /// is then read again (`rowsReadAhead`).
    func didWrite() {
        writes.add(1, ordering: .releasing)
    }
}
