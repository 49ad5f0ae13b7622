import Foundation
import PostgreSQLScratchServer
import Testing

/// The SwiftData to-do app, run as a user runs it.
@Suite struct TodoSwiftDataTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("todo-swiftdataTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String { "todo-swiftdata is not built next to the tests (swift build builds it)" }
    }

    /// Runs the program with `arguments`; its status and standard output.
    func run(_ arguments: String...) throws -> (status: Int32, output: String) {
        guard let program = SpawnedProgram.builtExecutable("todo-swiftdata") else { throw NotBuilt() }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.path
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        let out = folder.appendingPathComponent("stdout-\(UUID().uuidString)")
        let spawned = try SpawnedProgram.start([program.path] + arguments, environment: environment, stdout: out.path)
        let status = spawned.wait()
        return (status, String(decoding: try Data(contentsOf: out), as: UTF8.self))
    }

    @Test func theDemoPopulatesCompletesAndReadsTheFileThroughCoreData() throws {
        let (status, output) = try run("demo", "--count", "400")
        #expect(status == 0, "\(output)")
        #expect(output.contains("populate: 400 items from four model actors"))
        #expect(output.contains("stats: 401 items, 3 done, 398 pending"))
        #expect(output.contains("core data: 401 TodoItem rows"))
        #expect(output.hasSuffix("demo: ok\n"))
        // The demo's temporary store is gone.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("todo-swiftdata-demo-") }
        #expect(left.isEmpty)
    }

    @Test func addCompleteAndListKeepTheListInTheDefaultStore() throws {
        #expect(try run("add", "Buy milk", "--priority", "1").status == 0)
        #expect(try run("add", "Call Ana", "--priority", "2").status == 0)
        #expect(try run("complete", "Buy milk").status == 0)
        let list = try run("list")
        #expect(list.output == "[ ] Call Ana (priority 2)\n[x] Buy milk (priority 1)\n")
        #expect(try run("list", "--pending").output == "[ ] Call Ana (priority 2)\n")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/default.store").path))
        let missing = try run("complete", "Nothing")
        #expect(missing.status != 0 && missing.output.contains("No item is titled \"Nothing\"."))
    }
}
