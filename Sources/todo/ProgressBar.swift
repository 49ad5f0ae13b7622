#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpenCoreData

/// Shows how far long work has come: on a terminal, one line redrawn in place with a bar, the
/// count, the rate and the time left; otherwise (a pipe, a file, CI's log) a plain line at every
/// tenth of the way, so that logs stay short and readable.
///
/// Ours rather than a library's: console-kit (the maintained choice here) draws a bar without
/// count, rate or time left, prints nothing periodic when the output is not a terminal, and would
/// bring swift-nio and swift-log into the dependency graph of every package that depends on
/// OpenCoreData, for about a hundred lines.
///
/// `Sendable`: `update` may be called from any queue, such as a context's.
final class ProgressBar: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is guarded by `lock`.

    private let title: String
    private let total: Int
    private let isTerminal: Bool
    private let toStandardError: Bool
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private let lock = NSLock()
    private var lastDrawn: ContinuousClock.Instant
    private var tenthsReported = 0
    private var finished = false

    /// How often a terminal line is redrawn at most: often enough to look live, rarely enough to
    /// cost nothing next to the work.
    private static let redrawInterval = Duration.milliseconds(100)
    private static let barWidth = 24

    /// Whether standard output is a terminal, as opposed to a pipe or a file.
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// A bar on standard output, or on standard error when `toStandardError` (for work that is
    /// not the command's result, such as migrating the store first, so that output stays as it is).
    init(title: String, total: Int, isTerminal: Bool? = nil, toStandardError: Bool = false) {
        self.title = title
        self.total = max(total, 0)
        self.isTerminal = isTerminal ?? (isatty(toStandardError ? STDERR_FILENO : STDOUT_FILENO) == 1)
        self.toStandardError = toStandardError
        self.started = clock.now
        // The first rate is noise: the first line waits one interval.
        self.lastDrawn = started
    }

    /// Notes that `completed` units of the total are done; cheap enough to call for every unit.
    func update(_ completed: Int) {
        lock.withLock {
            guard !finished else { return }
            let now = clock.now
            if isTerminal {
                guard now - lastDrawn >= Self.redrawInterval else { return }
                lastDrawn = now
                write("\r" + line(completed, at: now) + "\u{1B}[K")
            } else {
                let tenths = total == 0 ? 10 : min(10, completed * 10 / total)
                // The last tenth is `finish`'s line, which gives the total time instead.
                guard tenths > tenthsReported, tenths < 10 else { return }
                tenthsReported = tenths
                write(line(completed, at: now) + "\n")
            }
        }
    }

    /// Shows `status` (such as "saving") in place of the rate and the time left, for a phase
    /// whose own progress can't be measured.
    func show(_ status: String, completed: Int) {
        lock.withLock {
            guard !finished else { return }
            let text = line(completed, at: clock.now, status: status)
            write(isTerminal ? "\r" + text + "\u{1B}[K" : text + "\n")
            lastDrawn = clock.now
        }
    }

    /// Draws the final state, `completed` units in the time taken, and ends the line.
    func finish(_ completed: Int) {
        lock.withLock {
            guard !finished else { return }
            finished = true
            let text = line(completed, at: clock.now, final: true)
            write(isTerminal ? "\r" + text + "\u{1B}[K\n" : text + "\n")
        }
    }

    private func line(
        _ completed: Int, at now: ContinuousClock.Instant, final: Bool = false, status: String? = nil
    ) -> String {
        let seconds = Self.seconds(now - started)
        let rate = seconds > 0 ? Double(completed) / seconds : 0
        let fraction = total == 0 ? 1 : min(1, Double(completed) / Double(total))
        var parts = ["\(completed)/\(total)", "\(Int(fraction * 100))%"]
        if let status {
            parts.append(status)
        } else if final {
            parts += ["\(Int(rate))/s", "in " + Self.format(seconds: seconds)]
        } else {
            parts.append("\(Int(rate))/s")
            if rate > 0 { parts.append(Self.format(seconds: Double(total - completed) / rate) + " left") }
        }
        if isTerminal {
            let filled = Int(fraction * Double(Self.barWidth))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: Self.barWidth - filled)
            return "\(title) \(bar) " + parts.joined(separator: "  ")
        }
        return "\(title): " + parts.joined(separator: ", ")
    }

    private func write(_ text: String) {
        if toStandardError {
            FileHandle.standardError.write(Data(text.utf8))
            return
        }
        print(text, terminator: "")
        // Standard output is block-buffered when it is not a terminal: flush so that a log shows
        // each line as it happens.
        fflush(nil)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `0.4 s`, `12.0 s`, `3 min 05 s`.
    static func format(seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        return String(format: "%d min %02d s", whole / 60, whole % 60)
    }
}
