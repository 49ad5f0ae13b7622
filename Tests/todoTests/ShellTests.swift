import Foundation
import Testing

/// The program as a user types it at a shell prompt, once it is on `PATH`.
@Suite struct ShellTests {
    /// Runs `script` with bash, the built program's folder first on `PATH` and the sandbox as its
    /// home, so that `todo` is found by name as an installed program is.
    private func bash(_ script: String, in sandbox: TodoSandbox) throws -> TodoResult {
        let folder = try TodoSandbox.executable().deletingLastPathComponent().path
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let bash = ["/bin/bash", "/usr/bin/bash"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/bin/bash"
        return try sandbox.runProgram(URL(fileURLWithPath: bash), ["-c", script], environment: ["PATH": "\(folder):\(path)"])
    }

    @Test func aBashScriptAddsAndLists() throws {
        let sandbox = try TodoSandbox()
        let result = try bash("set -e\ntodo add milk && todo list\n", in: sandbox)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == ["Added 1 · milk", "1 · milk"])
    }

    @Test func storeIsTakenBeforeOrAfterTheSubcommand() throws {
        let sandbox = try TodoSandbox()
        #expect(try sandbox.run("add", "milk").status == 0)
        let before = try sandbox.runTodo(["--store", sandbox.store.path, "list"])
        let after = try sandbox.runTodo(["list", "--store", sandbox.store.path])
        #expect(before.status == 0 && after.status == 0)
        #expect(before.lines == ["1 · milk"])
        #expect(after.lines == before.lines)
        // Before the subcommand with a subcommand's own options after it.
        #expect(try sandbox.runTodo(["--store", sandbox.store.path, "add", "eggs"]).status == 0)
        #expect(try sandbox.runTodo(["--store", sandbox.store.path, "list", "--limit", "1"]).lines == ["1 · milk", "(1 of 2 shown)"])
        #expect(try sandbox.run("list").lines == ["1 · milk", "2 · eggs"])
    }

    @Test func sqlDebugPrintsTheStatementsOnStandardError() throws {
        let sandbox = try TodoSandbox()
        #expect(try sandbox.run("add", "milk").status == 0)
        let argument = try sandbox.runTodo(["-com.apple.CoreData.SQLDebug", "1", "list", "--store", sandbox.store.path])
        #expect(argument.status == 0, "\(argument.stderr)")
        #expect(argument.lines == ["1 · milk"])
        #expect(argument.stderr.contains("sql: SELECT"), "\(argument.stderr)")
        let variable = try sandbox.runTodo(["list", "--store", sandbox.store.path], environment: ["OPENCOREDATA_SQL_DEBUG": "1"])
        #expect(variable.lines == ["1 · milk"])
        #expect(variable.stderr.contains("sql: SELECT"))
        // Off by default: nothing on standard error.
        #expect(try sandbox.run("list").stderr == "")
    }
}
