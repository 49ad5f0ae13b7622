import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Tells one long store read, from other threads, that it has been cancelled.
///
/// The flag is set from any thread (`cancel()` of the result, a `Progress` cancellation handler,
/// a Task's cancellation) and polled by the SQLite store from inside `sqlite3_step` (a progress
/// handler), so it is an atomic rather than a lock.
package final class StoreReadMonitor: Sendable {
    private let cancelled = Atomic<Bool>(false)

    init() {}

    package var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Whether a store has polled from inside a running statement, and the signal of the first
    /// time: the event "the store is executing the read" (SQLite sorting before its first row,
    /// for instance), which a test waits on rather than on a clock.
    private let polled = Atomic<Bool>(false)
    private let firstPoll = DispatchSemaphore(value: 0)

    /// `isCancelled`, asked by a store from inside a running statement (SQLite's progress
    /// handler); the first call signals `waitUntilStatementRuns`.
    ///
    /// - Returns: Whether the read was cancelled.
    package func pollFromRunningStatement() -> Bool {
        if !polled.load(ordering: .relaxed), !polled.exchange(true, ordering: .acquiringAndReleasing) { firstPoll.signal() }
        return isCancelled
    }

    /// Waits until a store polls from inside a running statement of this read.
    ///
    /// - Parameter timeout: How long at most.
    /// - Returns: Whether it did before the timeout.
    func waitUntilStatementRuns(timeout: DispatchTime) -> Bool {
        guard firstPoll.wait(timeout: timeout) == .success else { return false }
        firstPoll.signal()
        return true
    }

    /// Throws `StoreReadCancelled` if the read was cancelled.
    package func checkCancellation() throws {
        if isCancelled { throw StoreReadCancelled(underlying: nil) }
    }
}

/// Counts the rows of a read on the reading thread and reports the count whenever 1,000 rows or
/// 50 ms have gone by since the last report, so that progress rises in small steps without a
/// report per row.
///
/// A class, used by one thread at a time, so that the read loop's per-row closure counts through
/// a reference: a captured `var` cost a boxed, access-checked write per row.
package final class RowMeter {
    /// How many rows at most between two reports.
    static let rowStep = 1_000
    /// How long at most between two reports while rows keep coming, in nanoseconds.
    static let interval: UInt64 = 50_000_000

    private let report: @Sendable (Int) -> Void
    @exclusivity(unchecked) private(set) var rows: Int
    @exclusivity(unchecked) private var reported: Int
    @exclusivity(unchecked) private var reportedAt: UInt64

    /// A meter that tells `report` the rows read so far, on the reading thread.
    init(report: @escaping @Sendable (Int) -> Void) {
        self.report = report
        rows = 0
        reported = 0
        reportedAt = Self.now()
    }

    @inline(__always)
    func rowRead() {
        rows += 1
        if rows - reported >= Self.rowStep {
            reportNow(at: Self.now())
            return
        }
        // The clock every 16 rows (tens of microseconds): reading it cost more than the rest of
        // the row's counting.
        guard rows & 15 == 0 else { return }
        let now = Self.now()
        if now &- reportedAt >= Self.interval { reportNow(at: now) }
    }

    /// Counts rows read all at once, by a store that cannot stream them.
    package func rowsRead(_ count: Int) {
        rows += count
        if count > 0 { reportNow(at: Self.now()) }
    }

    /// Reports the last rows if they have not been reported yet.
    func finish() {
        if rows != reported { reportNow(at: Self.now()) }
    }

    private func reportNow(at now: UInt64) {
        reported = rows
        reportedAt = now
        report(rows)
    }

    /// A monotonic clock cheap enough to read on every row: the coarse clock ticks every few
    /// milliseconds, far finer than the 50 ms it measures, and costs no system call.
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// A read stopped because its monitor was cancelled.
package struct StoreReadCancelled: Error {
    /// The store's own error when it stopped a running statement (SQLite's `SQLITE_INTERRUPT`),
    /// nil when the read stopped between statements or stores. The cancelled fetch's error
    /// carries it as its underlying error.
    let underlying: NSError?

    package init(underlying: NSError? = nil) {
        self.underlying = underlying
    }
}

/// Where a store's read hands rows over while it reads: a consumer on another thread turns them
/// into objects meanwhile.
package struct RowChunks {
    /// Rows per chunk.
    let size: Int
    let handOver: ([StoreRow]) -> Void
}
