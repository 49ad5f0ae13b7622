import Foundation
import Testing

/// `todo demo`: the walkthrough and its table.
@Suite struct DemoTests {
    @Test func theDemoWalksThroughEveryStepAndCleansUp() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.runTodo(["demo", "--count", "500"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let lines = result.lines
        let header = try #require(lines.firstIndex { $0.hasPrefix("step ") })
        let rows = lines[(header + 1)...].prefix { !$0.isEmpty }
        #expect(
            rows.map { String($0.prefix { $0 != " " }) }
                == ["open", "populate", "fetch", "cancel", "toggle", "check-all", "clear-done", "watch", "total"])
        #expect(rows.allSatisfy { $0.hasSuffix(" ms") || $0.hasSuffix(" s") })
        #expect(rows.contains { $0.contains("500 items by createdAt, asynchronously; meanwhile the context ran ") })
        // A fetch of 500 rows may finish before its first progress report lets the demo cancel it.
        let cancelRow = try #require(rows.first { $0.hasPrefix("cancel ") })
        #expect(
            (cancelRow.contains("second fetch cancelled at ") && cancelRow.contains("nothing kept"))
                || cancelRow.contains("finished before it could be cancelled"))
        #expect(rows.contains { $0.contains("toggled the 3 oldest through their objects, saved: 3 done") })
        #expect(rows.contains { $0.contains("batch update of 500 rows, refresh, refetch (same objects): done 3 → 500") })
        #expect(rows.contains { $0.contains("batch delete of 500 done items; 0 left in the store") })
        // The watcher is a second coordinator on a store the process already has open; opening
        // it once released the first one's file locks, and the child's last close then deleted
        // the log under both, so the second change was never seen (SQLiteFileHeader).
        #expect(rows.contains { $0.contains("another process added 500 items, then \"Milk\": both seen through history, then deleted") })
        #expect(lines.contains("  watch: + added 500 items") && lines.contains("  watch: + added \"Milk\""))

        // The temporary store is gone.
        let storeLine = try #require(lines.first { $0.hasPrefix("store: ") })
        let store = String(storeLine.dropFirst("store: ".count))
        #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: store).deletingLastPathComponent().path))
    }

    @Test func keepLeavesTheStoreForList() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.runTodo(["demo", "--count", "20", "--keep"])
        #expect(result.status == 0)
        let kept = try #require(result.lines.last)
        #expect(kept.hasPrefix("Kept the store: todo list --store "))
        let store = try #require(kept.split(separator: " ").dropFirst(6).first.map(String.init))
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: store).deletingLastPathComponent()) }
        // The walkthrough ends by deleting every item: all done after Check All, then the
        // watch step's.
        let list = try sandbox.runTodo(["list", "--store", store, "--limit", "4"])
        #expect(list.lines == ["No items."])
        #expect(try sandbox.runTodo(["add", "after the demo", "--store", store]).status == 0)
        // Ids go on after the 20 items, and the 20 and one a second process added in the watch step.
        #expect(try sandbox.runTodo(["list", "--store", store]).lines == ["42 · after the demo"])
    }

    @Test func aChosenStoreIsKept() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.run("demo", "--count", "10")
        #expect(result.status == 0)
        #expect(result.lines.last == "Kept the store: todo list --store \(sandbox.store.path) --limit 10")
        #expect(try sandbox.run("stats").lines.prefix(3) == ["items:   0", "done:    0", "pending: 0"])
    }

    @Test func theDemoRefusesToReuseAStore() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "mine")
        let error = try sandbox.expectFailure("demo", "--count", "10")
        #expect(error == "Error: The demo makes a new store, and \(sandbox.store.path) already exists.")
    }
}
