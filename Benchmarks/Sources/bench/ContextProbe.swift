import Foundation
import OpenCoreData

/// A timer that performs a tiny block on a context every millisecond and records how long each
/// block waited for the context's queue: from the timer asking (`perform`) to the block running.
///
/// On a shared two-core machine the thread that drains the context's queue is regularly
/// preempted by other processes for a scheduler tick (4 ms) or two, whatever the context does;
/// measured, a 0.3 ms block of registration took 3 to 5 ms of wall time with 2 or 3 involuntary
/// context switches. So each wait is also reported without the time that thread spent runnable
/// but not running in the meantime (its run delay in `/proc/self/task/<tid>/schedstat`): what is
/// left is the time the queue was held by work, which is what the context controls. A block that
/// holds the queue for 100 ms counts fully, since the thread is running all that time.
final class ContextProbe: @unchecked Sendable {
    // @unchecked Sendable: `waits` is only touched on the context's queue; `threads` under its lock.
    struct Wait {
        /// Wall time from asking to running.
        var raw: Duration
        /// `raw` less the time the thread that ran the block was runnable but not running
        /// meanwhile; `raw` when that thread had not been seen before.
        var held: Duration
    }

    struct Report {
        var ticks: Int
        var longestRaw: Duration
        var longest: Duration
        var over5ms: Int
        var rawOver5ms: Int
    }

    private let context: NSManagedObjectContext
    private let timer: DispatchSourceTimer
    private var waits: [Wait] = []
    /// The threads that have run a probe block: the candidates for draining the context's queue.
    private let threads = ThreadSet()

    init(_ context: NSManagedObjectContext) {
        self.context = context
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ContextProbe", qos: .userInteractive))
        timer.schedule(deadline: .now(), repeating: .milliseconds(1), leeway: .nanoseconds(0))
        // Weakly: the context, and the objects it holds, must die when the test lets go of them.
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let known = threads.all
            var delays: [String: UInt64] = [:]
            for thread in known { delays[thread] = Self.runDelay("/proc/self/task/\(thread)/schedstat") }
            let before = delays
            let asked = ContinuousClock.now
            context.perform { [self] in
                let raw = ContinuousClock.now - asked
                let thread = Self.currentThread()
                var held = raw
                if let start = before[thread], let now = Self.runDelay("/proc/thread-self/schedstat"), now >= start {
                    held = max(.zero, raw - .nanoseconds(Int64(now - start)))
                }
                threads.insert(thread)
                waits.append(Wait(raw: raw, held: held))
            }
        }
        timer.resume()
    }

    func stop() -> Report {
        timer.cancel()
        let waits = context.performAndWait { self.waits }
        return Report(
            ticks: waits.count, longestRaw: waits.map(\.raw).max() ?? .zero, longest: waits.map(\.held).max() ?? .zero,
            over5ms: waits.count { $0.held > .milliseconds(5) }, rawOver5ms: waits.count { $0.raw > .milliseconds(5) })
    }

    /// The calling thread's id, from the `/proc/thread-self` link (`<pid>/task/<tid>`).
    private static func currentThread() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return "" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/").last.map(String.init) ?? ""
    }

    /// The second field of a schedstat file: nanoseconds spent runnable but waiting for a CPU.
    private static func runDelay(_ path: String) -> UInt64? {
        let file = open(path, O_RDONLY)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var buffer = [UInt8](repeating: 0, count: 96)
        let count = read(file, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2 else { return nil }
        return UInt64(String(decoding: fields[1], as: UTF8.self))
    }
}

/// The probe's set of thread ids, under a lock: the timer reads it, the context's blocks add to it.
final class ThreadSet: @unchecked Sendable {
    // @unchecked Sendable: `ids` is only touched under `lock`.
    private let lock = NSLock()
    private var ids: Set<String> = []

    var all: Set<String> { lock.withLock { ids } }
    func insert(_ id: String) { lock.withLock { _ = ids.insert(id) } }
}
