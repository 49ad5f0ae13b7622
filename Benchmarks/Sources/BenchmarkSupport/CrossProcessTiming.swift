import Foundation

/// What timing between two processes needs: a clock both read alike, arrivals a measuring thread
/// waits on, and the lines another process writes to a pipe.
public enum MonotonicClock {
    /// CLOCK_MONOTONIC in nanoseconds: the same clock in every process of the machine.
    public static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// When notifications arrived, for the measuring thread to wait on.
public final class Arrivals: @unchecked Sendable {
    // @unchecked Sendable: `times` is guarded by `condition`.
    private let condition = NSCondition()
    private var times: [UInt64] = []

    public init() {}

    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return times.count
    }

    public func note(_ time: UInt64) {
        condition.lock()
        times.append(time)
        condition.broadcast()
        condition.unlock()
    }

    /// The time of the `number`th notification, waiting up to `timeout` seconds for it.
    public func wait(for number: Int, timeout: TimeInterval) -> UInt64? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while times.count < number {
            guard condition.wait(until: deadline) else { return nil }
        }
        return times[number - 1]
    }
}

/// Lines from a pipe.
public final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    public init(_ handle: FileHandle) { self.handle = handle }

    /// The next line without its newline; nil at the end of the stream.
    public func next() -> String? {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...end)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}

/// This program started again as another process that answers requests line by line: requests
/// go to its standard input, its replies come from its standard output. It says `ready` first.
public final class ChildProgram {
    private let process = Process()
    private let requests = Pipe()
    /// The child's replies.
    public let replies: LineReader

    /// Starts this program with `arguments` and waits for its `ready`.
    ///
    /// - Throws: Foundation's error when it cannot start; `ChildProgram.NotReady` when it stops
    ///   or says something else first.
    public init(arguments: [String]) throws {
        let output = Pipe()
        process.executableURL = Bundle.main.executableURL
        process.arguments = arguments
        process.standardInput = requests
        process.standardOutput = output
        replies = LineReader(output.fileHandleForReading)
        try process.run()
        guard replies.next() == "ready" else {
            finish()
            throw NotReady()
        }
    }

    public struct NotReady: Error, CustomStringConvertible {
        public var description: String { "the child process did not start" }
    }

    /// Sends one request line.
    public func send(_ line: String) {
        requests.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes its input, which ends it, and waits for it to exit.
    public func finish() {
        try? requests.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
