import Foundation
import Testing

/// add, list, check, uncheck and delete, as a user runs them one after another.
@Suite struct ItemCommandTests {
    @Test func addPrintsEachNewItemWithItsID() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.run("add", "Buy milk", "Walk the dog")
        #expect(result.status == 0)
        #expect(result.lines == ["Added 1 · Buy milk", "Added 2 · Walk the dog"])
        #expect(result.stderr == "")
        #expect(FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test func listShowsItemsOldestFirstWithCheckMarksAndFilters() throws {
        let sandbox = try TodoSandbox()
        for name in ["first", "second", "third"] { try sandbox.run("add", name) }
        try sandbox.run("check", "2")

        let all = try sandbox.run("list")
        #expect(all.status == 0)
        #expect(all.lines == ["1 · first", "2 ✓ second", "3 · third"])
        #expect(try sandbox.run("list", "--done").lines == ["2 ✓ second"])
        #expect(try sandbox.run("list", "--pending").lines == ["1 · first", "3 · third"])
        #expect(try sandbox.run("list", "--limit", "2").lines == ["1 · first", "2 ✓ second", "(2 of 3 shown)"])
        // `list` is the default subcommand.
        #expect(try sandbox.run().lines == all.lines)
    }

    @Test func listSaysWhenNothingMatches() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "only")
        #expect(try sandbox.run("list", "--done").lines == ["No done items."])
        try sandbox.run("delete", "1")
        #expect(try sandbox.run("list").lines == ["No items."])
    }

    @Test func listOnAMissingStoreSaysSoAndCreatesNothing() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.run("list")
        #expect(result.status == 0)
        #expect(result.lines == ["No items yet: there is no store at \(sandbox.store.path). Add one with `todo add NAME`."])
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test func checkAndUncheckChangeTheStoredItems() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a", "b", "c")

        let checked = try sandbox.run("check", "1", "3")
        #expect(checked.status == 0)
        #expect(checked.lines == ["Checked 1 ✓ a", "Checked 3 ✓ c"])
        #expect(try sandbox.run("list").lines == ["1 ✓ a", "2 · b", "3 ✓ c"])

        let unchecked = try sandbox.run("uncheck", "3")
        #expect(unchecked.status == 0)
        #expect(unchecked.lines == ["Unchecked 3 · c"])
        #expect(try sandbox.run("list").lines == ["1 ✓ a", "2 · b", "3 · c"])
    }

    @Test func deleteRemovesTheItemsAndKeepsTheOthersIDs() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a", "b", "c")
        let deleted = try sandbox.run("delete", "1", "3")
        #expect(deleted.status == 0)
        #expect(deleted.lines == ["Deleted 1 · a", "Deleted 3 · c"])
        #expect(try sandbox.run("list").lines == ["2 · b"])
        // A new item gets a new id, never a deleted one's.
        #expect(try sandbox.run("add", "d").lines == ["Added 4 · d"])
    }

    @Test func idsLineUpWhenTheyHaveDifferentWidths() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("populate", "--count", "10")
        try sandbox.run("add", "eleventh")
        let lines = try sandbox.run("list").lines
        #expect(lines.first == " 1 · Item 0")
        #expect(lines.last == "11 · eleventh")
    }
}
