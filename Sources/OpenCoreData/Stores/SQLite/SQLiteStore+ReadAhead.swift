import Foundation
import Synchronization

/// Reading the next batches of a `fetchBatchSize` fetch on another thread while the context uses
/// the current one: a batch's read is most of a batch's cycle, and on two cores the context's
/// registering and key-value reads then overlap it.
extension SQLiteStore {
    /// Queues a read of the rows of `primaryKeys` on the store's read-ahead queue; nil where a
    /// second thread would not help.
    func readAhead(of entity: NSEntityDescription, primaryKeys: [Int64]) -> PendingRows? {
        guard SecondThread.helps, pool != nil else { return nil }
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
        let rows = pending.wait()
        guard pending.writes == writes.load(ordering: .acquiring) else { return nil }
        return rows
    }

    /// Counts a committed write, after the commit: a read queued before it and taken after it
    /// is then read again (`rowsReadAhead`).
    func didWrite() {
        writes.add(1, ordering: .releasing)
    }
}

/// Rows of one batch of a `fetchBatchSize` fetch, read by whichever thread claims the read first:
/// the store's read-ahead queue, or the context's thread when it would otherwise wait for
/// another batch (`NSManagedObjectContext.loadBatch`), so that both cores read.
final class PendingRows: @unchecked Sendable {
    // @unchecked Sendable: `read` and `result` are touched under `condition`'s lock; the read
    // runs once, on the thread that took it, and its rows are handed over whole.
    /// The store's count of committed writes when the read was queued.
    let writes: Int
    /// The read, until a thread claims it (which lets go of what it holds, the store among them).
    private var read: (() throws -> [StoreRow])?
    private let condition = NSCondition()
    private var result: Result<[StoreRow], any Error>?

    init(writes: Int, read: @escaping () throws -> [StoreRow]) {
        self.writes = writes
        self.read = read
    }

    /// Whether the read is done.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return result != nil
    }

    /// Runs the read (or `instead`) here unless another thread has claimed it; true if it ran here.
    @discardableResult
    func runIfUnclaimed(instead: (() throws -> [StoreRow])? = nil) -> Bool {
        condition.lock()
        let work = read
        read = nil
        condition.unlock()
        guard let work else { return false }
        let result = Result { try (instead ?? work)() }
        condition.lock()
        self.result = result
        condition.broadcast()
        condition.unlock()
        return true
    }

    /// Waits for the read; nil when it failed (the caller's own read then reports the error).
    func wait() -> [StoreRow]? {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try? result!.get()
    }
}
