import Foundation
import Testing

/// check-all and clear-done: the tutorials' batch update and a batch delete, as a user sees them.
@Suite struct BatchCommandTests {
    /// "Checked all 3 items in 4 ms." → 3, checking the rest of the line's shape.
    private func count(in line: String?, prefix: String, suffix: String) -> Int? {
        guard let line, line.hasPrefix(prefix), line.hasSuffix("."), line.contains(suffix + " in ") else { return nil }
        let rest = line.dropFirst(prefix.count)
        return Int(rest.prefix { $0.isNumber })
    }

    @Test func checkAllMarksEveryItemDone() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a", "b", "c")
        try sandbox.run("check", "2")
        let result = try sandbox.run("check-all")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.lines.count == 1)
        #expect(count(in: result.lines.first, prefix: "Checked all ", suffix: "items") == 3)
        #expect(try sandbox.run("list").lines == ["1 ✓ a", "2 ✓ b", "3 ✓ c"])
        #expect(try sandbox.run("list", "--pending").lines == ["No pending items."])
    }

    @Test func clearDoneDeletesOnlyTheDoneItems() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a", "b", "c", "d")
        try sandbox.run("check", "1", "3")
        let result = try sandbox.run("clear-done")
        #expect(result.status == 0)
        #expect(count(in: result.lines.first, prefix: "Deleted ", suffix: "done items") == 2)
        #expect(try sandbox.run("list").lines == ["2 · b", "4 · d"])
        // Nothing done is left: a second run deletes nothing.
        let again = try sandbox.run("clear-done")
        #expect(count(in: again.lines.first, prefix: "Deleted ", suffix: "done items") == 0)
        #expect(try sandbox.run("list").lines == ["2 · b", "4 · d"])
    }

    @Test func checkAllThenClearDoneEmptiesThePopulatedStore() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("populate", "--count", "500")
        #expect(count(in: try sandbox.run("check-all").lines.first, prefix: "Checked all ", suffix: "items") == 500)
        #expect(count(in: try sandbox.run("clear-done").lines.first, prefix: "Deleted ", suffix: "done items") == 500)
        #expect(try sandbox.run("list").lines == ["No items."])
    }
}
