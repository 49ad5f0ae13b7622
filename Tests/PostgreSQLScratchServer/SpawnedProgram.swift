import Foundation
import Synchronization

/// A program the tests start with `posix_spawn` and wait for with `waitpid`.
///
/// Not Foundation's `Process`: on Linux its wait can miss a child's exit and block for ever (seen
/// with `pg_ctl start`, which leaves a daemon behind, and with `todo demo` on a PostgreSQL store
/// while other tests started programs). `waitpid` on the child's own pid cannot miss it.
public final class SpawnedProgram: Sendable {
    public let pid: pid_t
    /// The exit status once `waitpid` returned it.
    private let status = Mutex<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `argv[0]` (a path) with `argv`, standard input from /dev/null and standard output
    /// and error into the files `stdout` and `stderr` (created or truncated), no other descriptor
    /// of this process, and `environment` (this process's when nil).
    ///
    /// - Throws: `PostgreSQLScratchServer.Unavailable` when the program cannot start.
    public static func start(
        _ argv: [String], environment: [String: String]? = nil, stdout: String, stderr: String? = nil
    ) throws -> SpawnedProgram {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        if let stderr {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // Nothing else of this process's: a program left running (a server) that kept a
        // descriptor of another program's would keep that program's end from being seen.
        if let closeFrom { _ = closeFrom(&actions, 3) }
        let arguments = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for variable in variables ?? [] { free(variable) } }
        var pid: pid_t = 0
        let spawned = variables.map { posix_spawn(&pid, argv[0], &actions, nil, arguments, $0) }
            ?? posix_spawn(&pid, argv[0], &actions, nil, arguments, environ)
        guard spawned == 0 else { throw PostgreSQLScratchServer.Unavailable(description: "\(argv[0]) could not start (errno \(spawned))") }
        return SpawnedProgram(pid: pid)
    }

    /// The package's built executable `name`, found next to the test bundle in the build products
    /// folder (swift test builds every product first); nil when it is not there.
    public static func builtExecutable(_ name: String) -> URL? {
        // Linux runs `<products>/<Package>PackageTests.xctest` itself; macOS loads a bundle
        // `<products>/<Package>PackageTests.xctest/Contents/MacOS/…`: look upwards from either.
        var folder = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        for _ in 0..<5 {
            folder = folder.deletingLastPathComponent()
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        for bundle in Bundle.allBundles {
            let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Waits for the program to end; its exit status, or 128 plus the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &raw, 0) } while result == -1 && errno == EINTR
        if result == pid { return record(raw) }
        // Reaped by `isRunning` on another thread: its status is on its way.
        for _ in 0..<1_000 {
            if let known = status.withLock({ $0 }) { return known }
            usleep(1_000)
        }
        return -1
    }

    /// Whether the program has not ended yet.
    public var isRunning: Bool {
        if status.withLock({ $0 }) != nil { return false }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        if result == 0 { return true }
        if result == pid { record(raw) }
        return false
    }

    /// Sends `signal` (SIGTERM, SIGINT…) to the program while it runs.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Keeps the status `waitpid` reported, decoded.
    @discardableResult
    private func record(_ raw: Int32) -> Int32 {
        status.withLock { status in
            if let status { return status }
            let decoded = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            status = decoded
            return decoded
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not export; nil where the C library lacks it.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
