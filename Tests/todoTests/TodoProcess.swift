import Foundation
import PostgreSQLScratchServer
import Testing

/// What one run of the `todo` program did.
struct TodoResult {
    let status: Int32
    let stdout: String
    let stderr: String

    /// Standard output's lines, without the last newline.
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

/// A fresh folder for one test, with a store path in it, removed when the value is released; runs
/// the built `todo` program with its data folder inside, so that no test touches the real one.
final class TodoSandbox: Sendable {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("todoTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The store most tests use, by `--store`.
    var store: URL { folder.appendingPathComponent("Done.sqlite") }

    /// Runs `todo arguments… --store <the sandbox's store>`.
    @discardableResult
    func run(_ arguments: String...) throws -> TodoResult {
        try runTodo(arguments + ["--store", store.path])
    }

    /// Runs `todo` with exactly `arguments`. `XDG_DATA_HOME` and `HOME` point into the sandbox
    /// unless `environment` says otherwise.
    func runTodo(_ arguments: [String], environment: [String: String] = [:]) throws -> TodoResult {
        try runProgram(try TodoSandbox.executable(), arguments, environment: environment)
    }

    /// Runs `program` with `arguments` in the sandbox's environment, as `runTodo` does.
    func runProgram(_ program: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> TodoResult {
        try start(program, arguments, environment: environment).finish()
    }

    /// Starts `todo arguments…` and returns at once, so that several run at the same time
    /// without a thread blocked on each.
    func startTodo(_ arguments: [String], environment: [String: String] = [:]) throws -> RunningProgram {
        try start(try TodoSandbox.executable(), arguments, environment: environment)
    }

    private func start(_ program: URL, _ arguments: [String], environment: [String: String]) throws -> RunningProgram {
        var env = ProcessInfo.processInfo.environment
        env["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        env["HOME"] = folder.appendingPathComponent("home").path
        for (key, value) in environment { env[key] = value.isEmpty ? nil : value }
        // Files rather than pipes: nothing to drain while the program runs.
        let id = UUID().uuidString
        let outURL = folder.appendingPathComponent("stdout-\(id)")
        let errURL = folder.appendingPathComponent("stderr-\(id)")
        let spawned = try SpawnedProgram.start([program.path] + arguments, environment: env, stdout: outURL.path, stderr: errURL.path)
        return RunningProgram(program: spawned, outURL: outURL, errURL: errURL)
    }

    /// Runs a command that must fail, and checks that it failed as a user should see it: status 1,
    /// nothing on standard output, one `Error:` line on standard error, and the store at `store`
    /// the same file with the same items as before. Returns the error line.
    func expectFailure(
        _ arguments: String..., store: URL? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        try expectFailure(arguments, store: store, sourceLocation: sourceLocation)
    }

    /// `expectFailure` with the arguments as an array.
    func expectFailure(
        _ arguments: [String], store: URL? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let store = store ?? self.store
        let before = try snapshot(of: store)
        let result = try runTodo(arguments + ["--store", store.path])
        #expect(result.status == 1, "exit status", sourceLocation: sourceLocation)
        #expect(result.stdout == "", sourceLocation: sourceLocation)
        let errorLines = result.stderr.split(separator: "\n")
        #expect(errorLines.count == 1, "one line on standard error: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("Error: "), sourceLocation: sourceLocation)
        #expect(try snapshot(of: store) == before, "the store changed", sourceLocation: sourceLocation)
        return String(errorLines.first ?? "")
    }

    /// The store's bytes and, when it is a store, what `todo list` shows of it.
    func snapshot(of store: URL) throws -> StoreSnapshot {
        guard FileManager.default.fileExists(atPath: store.path) else { return StoreSnapshot(bytes: nil, listing: nil) }
        let listing = try runTodo(["list", "--store", store.path])
        return StoreSnapshot(
            bytes: try Data(contentsOf: store), listing: listing.status == 0 ? listing.stdout : nil)
    }

    /// The built `todo` program: `TODO_EXECUTABLE` if set, else next to the test bundle in the
    /// build products folder (swift test builds every product first).
    static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["TODO_EXECUTABLE"] { return URL(fileURLWithPath: path) }
        if let built = SpawnedProgram.builtExecutable("todo") { return built }
        throw TodoNotBuilt()
    }
}

/// A store as a user would compare it: its file's bytes and its items.
struct StoreSnapshot: Equatable {
    let bytes: Data?
    let listing: String?
}

struct TodoNotBuilt: Error, CustomStringConvertible {
    var description: String { "The `todo` program is not built next to the tests; run `swift build` or set TODO_EXECUTABLE." }
}

/// A program started by `TodoSandbox`, its output going to files.
struct RunningProgram {
    let program: SpawnedProgram
    let outURL: URL
    let errURL: URL

    var isRunning: Bool { program.isRunning }

    /// Asks the program to stop (SIGTERM).
    func terminate() { program.send(SIGTERM) }

    /// Interrupts the program (SIGINT), as Control-C does.
    func interrupt() { program.send(SIGINT) }

    /// Waits for the program to end and returns what it did.
    func finish() throws -> TodoResult {
        let status = program.wait()
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        return TodoResult(
            status: status,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
