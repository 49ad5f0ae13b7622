import Foundation

/// Rows of one batch of a `fetchBatchSize` fetch, read by whichever thread claims the read first:
/// the store's read-ahead queue (a store that reads ahead; `startReadingRows`), or the context's
/// thread when it would otherwise wait for another batch (`NSManagedObjectContext.loadBatch`), so
/// that both cores read.
package final class PendingRows: @unchecked Sendable {
    // @unchecked Sendable: `state` is touched under `condition`'s lock only; the read runs once,
    // on the thread that claimed it, and its rows are handed over whole.
    /// The store's count of committed writes when the read was queued.
    let writes: Int
    private let condition = NSCondition()
    private var state: PendingRowsState

    init(writes: Int, read: @escaping () throws -> [StoreRow]) {
        self.writes = writes
        state = .unclaimed(read)
    }

    /// Whether the read is done.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.isFinished
    }

    /// Runs the read (or `instead`) here unless another thread has claimed it; true if it ran here.
    @discardableResult
    func runIfUnclaimed(instead: (() throws -> [StoreRow])? = nil) -> Bool {
        condition.lock()
        let work = state.claim()
        condition.unlock()
        guard let work else { return false }
        let result = Result { try (instead ?? work)() }
        condition.lock()
        state.finish(result)
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
        return state.take()
    }

    /// Waits for the read, leaving its rows to `take()`.
    func waitUntilFinished() {
        condition.lock()
        defer { condition.unlock() }
        waitLocked()
    }

    /// Waits, holding `condition`'s lock, until the read has run.
    private func waitLocked() {
        while !state.isFinished { condition.wait() }
    }
}

/// The lifecycle of a pending read: unclaimed (holding the read), running on the thread that
/// claimed it, finished (with its rows or error), and taken. Each transition is a method; one
/// that does not apply leaves the state as it is and says so.
enum PendingRowsState {
    case unclaimed(() throws -> [StoreRow])
    case running
    case finished(Result<[StoreRow], any Error>)
    case taken

    /// Whether the read has run (its rows may have been taken since).
    var isFinished: Bool {
        switch self {
        case .unclaimed, .running: false
        case .finished, .taken: true
        }
    }

    /// Claims the read for the calling thread: unclaimed becomes running.
    ///
    /// - Returns: The read to run; nil when another thread claimed it before (which let go of
    ///   what the read holds, the store among them).
    mutating func claim() -> (() throws -> [StoreRow])? {
        guard case .unclaimed(let read) = self else { return nil }
        self = .running
        return read
    }

    /// The claimed read's outcome: running becomes finished.
    mutating func finish(_ result: Result<[StoreRow], any Error>) {
        guard case .running = self else { preconditionFailure("A pending read finished that no thread had claimed.") }
        self = .finished(result)
    }

    /// The rows, moved out: finished becomes taken.
    ///
    /// - Returns: The rows; nil when the read failed, has not finished, or was taken before.
    mutating func take() -> [StoreRow]? {
        guard case .finished(let result) = self else { return nil }
        self = .taken
        return try? result.get()
    }
}
