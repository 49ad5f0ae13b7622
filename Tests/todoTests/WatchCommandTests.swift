import Foundation
import Testing

/// `todo watch` follows the store while other `todo` processes change it, and prints each change.
@Suite struct WatchCommandTests {
    /// Waits until the running program's standard output holds every line of `expected`, in that
    /// order; returns what it printed by then.
    private func output(of program: RunningProgram, reaching expected: [String], timeout: TimeInterval = 60) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while Date() < deadline {
            let text = (try? String(contentsOf: program.outURL, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map(String.init)
            if lines.count >= expected.count, Array(lines.suffix(expected.count)) == expected { return lines }
            if !program.isRunning { return lines }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return lines
    }

    @Test func watchPrintsWhatAnotherProcessAddsChecksAndClears() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "First")
        let watcher = try sandbox.startTodo(["watch", "--store", sandbox.store.path])
        var finished = false
        defer { if !finished { watcher.terminate(); _ = try? watcher.finish() } }
        let ready = output(of: watcher, reaching: ["Watching \(sandbox.store.path); press Ctrl-C to stop."])
        #expect(ready.last?.hasPrefix("Watching") == true)

        #expect(try sandbox.run("add", "Milk").status == 0)
        #expect(output(of: watcher, reaching: ["+ added \"Milk\""]).last == "+ added \"Milk\"")
        #expect(try sandbox.run("check", "2").status == 0)
        #expect(output(of: watcher, reaching: ["✓ checked \"Milk\""]).last == "✓ checked \"Milk\"")
        #expect(try sandbox.run("clear-done").status == 0)
        #expect(output(of: watcher, reaching: ["- deleted \"Milk\""]).last == "- deleted \"Milk\"")
        #expect(try sandbox.run("check-all").status == 0)
        let all = output(of: watcher, reaching: ["✓ checked \"First\""])
        #expect(all.last == "✓ checked \"First\"")

        watcher.interrupt()
        let result = try watcher.finish()
        finished = true
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.lines == [
            "Watching \(sandbox.store.path); press Ctrl-C to stop.", "+ added \"Milk\"", "✓ checked \"Milk\"", "- deleted \"Milk\"",
            "✓ checked \"First\"",
        ])
    }
}
