import Foundation

/// Rows of one batch of a `fetchBatchSize` fetch, read by whichever thread claims the read first:
/// the store's read-ahead queue (a store that reads ahead; `NSPersistentStore.startReadingRows`), or the context's thread when it would otherwise wait for
/// another batch (`NSManagedObjectContext.loadBatch`), so that both cores read.
package final class PendingRows: @unchecked Sendable {
    // @unchecked Sendable: `read` and `result` are touched under `condition`'s lock; the read
    // runs once, on the thread that took it, and its rows are handed over whole.
    /// The store's count of committed writes when the read was queued.
    let writes: Int
    /// The read, until a thread claims it (which lets go of what it holds, the store among them).
    private var read: (() throws -> [StoreRow])?
    private let condition = NSCondition()
    private var result: Result<[StoreRow], any Error>?
    private var finished = false

    init(writes: Int, read: @escaping () throws -> [StoreRow]) {
        self.writes = writes
        self.read = read
    }

    /// Whether the read is done.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished
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
        finished = true
        condition.broadcast()
        condition.unlock()
        return true
    }

    /// Waits for the read and takes its rows out; nil when it failed (the caller's own read then
    /// reports the error) or they were taken before. Taken, not copied: the caller registers
    /// them in place, which a second reference to their array would make copy every row.
    func take() -> [StoreRow]? {
        condition.lock()
        defer { condition.unlock() }
        waitLocked()
        return try? result.take()?.get()
    }

    /// Waits for the read, leaving its rows to `take()`.
    func waitUntilFinished() {
        condition.lock()
        defer { condition.unlock() }
        waitLocked()
    }

    /// Waits, holding `condition`'s lock, until the read has run.
    private func waitLocked() {
        while !finished { condition.wait() }
    }
}
