import Foundation
import Testing

/// populate and stats.
@Suite struct PopulateStatsTests {
    @Test func populateInsertsNumberedItemsWithOneSave() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.run("populate", "--count", "50")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.lines.last == "Inserted 50 items in one save into \(sandbox.store.path).")
        #expect(try sandbox.run("list", "--limit", "2").lines == ["1 · Item 0", "2 · Item 1", "(2 of 50 shown)"])
        #expect(try sandbox.run("list", "--pending").lines.count == 50)
    }

    @Test func populatedItemsListAfterOlderItemsAndBeforeNewerOnes() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "older")
        try sandbox.run("populate", "--count", "3")
        try sandbox.run("add", "newer")
        #expect(try sandbox.run("list").lines == ["1 · older", "2 · Item 0", "3 · Item 1", "4 · Item 2", "5 · newer"])
    }

    @Test func populateSavesEveryBatch() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.run("populate", "--count", "25", "--batch", "10")
        #expect(result.status == 0)
        #expect(result.lines.last == "Inserted 25 items in 3 saves into \(sandbox.store.path).")
        let names = try sandbox.run("list").lines
        #expect(names.count == 25)
        #expect(names.last == "25 · Item 24")
    }

    /// Standard output is a file here: plain progress lines, one per tenth, then the total.
    @Test func populateShowsPlainProgressLinesWhenNotOnATerminal() throws {
        let sandbox = try TodoSandbox()
        let lines = try sandbox.run("populate", "--count", "1000").lines
        let progress = lines.filter { $0.hasPrefix("populate: ") }
        #expect(progress.count == 11)  // 10 %, …, 90 %, saving, and the final line
        #expect(progress.first?.hasPrefix("populate: 100/1000, 10%, ") == true)
        #expect(progress.first?.hasSuffix(" left") == true)
        #expect(progress.contains("populate: 1000/1000, 100%, saving"))
        let last = try #require(progress.last)
        #expect(last.hasPrefix("populate: 1000/1000, 100%, "))
        #expect(last.contains("/s, in "))
        #expect(!lines.joined().contains("\u{1B}"), "no terminal escapes in a file")
    }

    @Test func statsCountsItemsAndShowsTheStoresPathAndSize() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a", "b", "c")
        try sandbox.run("check", "2")
        let result = try sandbox.run("stats")
        #expect(result.status == 0)
        let lines = result.lines
        #expect(Array(lines.prefix(4)) == ["items:   3", "done:    1", "pending: 2", "store:   \(sandbox.store.path)"])
        let size = try #require(lines.first { $0.hasPrefix("size:") })
        let bytes = try #require((try FileManager.default.attributesOfItem(atPath: sandbox.store.path)[.size] as? NSNumber)?.intValue)
        #expect(size == "size:    \(String(format: "%.1f", Double(bytes) / 1024)) KB")
        #expect(lines.last?.hasPrefix("model:   version 2 (") == true)
    }

    @Test func statsOnAMissingStoreCreatesNothing() throws {
        let sandbox = try TodoSandbox()
        let result = try sandbox.run("stats")
        #expect(result.status == 0)
        #expect(result.lines == ["items:   0", "store:   \(sandbox.store.path) (not created yet)"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }
}
