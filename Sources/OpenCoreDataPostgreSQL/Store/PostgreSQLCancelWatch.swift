import Dispatch
import OpenCoreData

/// Watches an asynchronous fetch's monitor while its statement runs on the server, and cancels
/// the statement there (`pg_cancel_backend`) once the fetch is cancelled: the server stops
/// working on it, rather than finishing a read nobody wants.
final class PostgreSQLCancelWatch: @unchecked Sendable {
    /// How often the monitor is looked at.
    static let interval: DispatchTimeInterval = .milliseconds(10)

    // @unchecked Sendable: `done` and `timer` are touched only under `lock`; the cancel runs
    // under it, so `stop()` returns only once no cancel can still reach the session.
    private let lock = NSLock()
    private var done = false
    private var timer: (any DispatchSourceTimer)?

    init(monitor: StoreReadMonitor, cancel: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { [weak self] in
            guard let self, monitor.isCancelled else { return }
            self.lock.withLock {
                guard !self.done else { return }
                self.done = true
                self.timer?.cancel()
                cancel()
            }
        }
        lock.withLock { self.timer = timer }
        timer.resume()
    }

    /// Stops watching: the statement finished.
    func stop() {
        lock.withLock {
            done = true
            timer?.cancel()
            timer = nil
        }
    }
}
