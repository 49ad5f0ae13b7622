import Dispatch
import OpenCoreData

/// Gives a context a tiny block every millisecond and records how long each waited to run: how
/// the demo shows that an asynchronous fetch leaves its context free.
final class ContextProbe: @unchecked Sendable {
    // @unchecked Sendable: the counters are only touched under `lock`.
    private let lock = NSLock()
    private var answered = 0
    private var longest = Duration.zero
    private var running = true
    private let timer: DispatchSourceTimer

    init(_ context: NSManagedObjectContext) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "todo.demo.probe"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(1))
        timer.setEventHandler { [self] in
            let sent = ContinuousClock.now
            context.perform { [self] in
                let waited = ContinuousClock.now - sent
                lock.withLock {
                    guard running else { return }
                    answered += 1
                    longest = max(longest, waited)
                }
            }
        }
        timer.resume()
    }

    /// Stops probing; returns how many blocks ran and the longest wait.
    func stop() -> (answered: Int, longest: Duration) {
        timer.cancel()
        return lock.withLock {
            running = false
            return (answered, longest)
        }
    }
}
