import Foundation
import PostgreSQLScratchServer
import Testing

/// `todo --store postgres://…`: every command on a list kept in PostgreSQL, shared by processes
/// as it would be by machines, `watch` included; the password never printed.
@Suite struct PostgreSQLStoreTests {
    /// A store URL in a new schema, over TCP with the password (what a second machine uses).
    private func storeURL() throws -> String {
        #if PostgreSQL
        switch PostgreSQLScratchServer.shared {
        case .success(let server): return server.tcpURL(schema: PostgreSQLScratchServer.newSchemaName()).absoluteString
        case .failure(let reason): try Test.cancel("skipped: install postgresql (initdb, pg_ctl on PATH): \(reason)")
        }
        #else
        try Test.cancel("skipped: built without the package's PostgreSQL trait (postgres-nio)")
        #endif
    }

    @Test func everyItemCommandWorksOnADatabase() throws {
        let sandbox = try TodoSandbox()
        let store = try storeURL()
        @discardableResult
        func todo(_ arguments: String...) throws -> TodoResult {
            let result = try sandbox.runTodo(arguments + ["--store", store])
            #expect(result.status == 0, "todo \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
        // Reading creates nothing, as with a file; the first add creates the store.
        #expect(try todo("list").lines.first?.hasPrefix("No items yet: there is no store at postgres://ocd:***@") == true)
        #expect(try todo("stats").lines.first == "items:   0")
        try todo("add", "Milk", "Bread")
        #expect(try todo("list").lines.count == 2)
        try todo("delete", "1", "2")
        #expect(try todo("list").lines == ["No items."])
        try todo("add", "Milk", "Bread")
        try todo("add", "Eggs")
        #expect(try todo("list").lines == ["3 · Milk", "4 · Bread", "5 · Eggs"])
        try todo("check", "4")
        #expect(try todo("list", "--done").lines == ["4 ✓ Bread"])
        try todo("uncheck", "4")
        try todo("delete", "5")
        #expect(try todo("list").lines == ["3 · Milk", "4 · Bread"])
        try todo("populate", "--count", "50")
        try todo("check-all")
        #expect(try todo("list", "--pending").lines == ["No pending items."])
        try todo("clear-done")
        #expect(try todo("list").lines == ["No items."])
        try todo("add", "Tea")
        let fetched = try todo("fetch")
        #expect(fetched.stdout.hasPrefix("Fetched 1 records"))

        let stats = try todo("stats").lines
        #expect(stats.contains("items:   1"))
        // The store is named, its password is not.
        #expect(stats.contains { $0.hasPrefix("store:   postgres://ocd:***@127.0.0.1:") })
        #expect(!stats.joined().contains(PostgreSQLScratchServer.password))
        #expect(!stats.contains { $0.hasPrefix("size:") })

        // An unknown id fails and changes nothing, as on a file.
        let failed = try sandbox.runTodo(["check", "99", "--store", store])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("No item with id 99 in postgres://ocd:***@"))
        let left = try todo("list").lines
        #expect(left.count == 1 && left.first?.hasSuffix("· Tea") == true)
    }

    @Test func watchSeesWhatAnotherProcessDoesToTheDatabase() throws {
        let sandbox = try TodoSandbox()
        let store = try storeURL()
        #expect(try sandbox.runTodo(["add", "First", "--store", store]).status == 0)
        let watcher = try sandbox.startTodo(["watch", "--store", store])
        var finished = false
        defer { if !finished { watcher.terminate(); _ = try? watcher.finish() } }
        #expect(wait(for: watcher) { $0.first?.hasPrefix("Watching postgres://ocd:***@") == true })

        #expect(try sandbox.runTodo(["add", "Milk", "--store", store]).status == 0)
        #expect(wait(for: watcher) { $0.last == "+ added \"Milk\"" })
        #expect(try sandbox.runTodo(["check-all", "--store", store]).status == 0)
        #expect(wait(for: watcher) { $0.contains("✓ checked \"Milk\"") && $0.contains("✓ checked \"First\"") })

        watcher.interrupt()
        let result = try watcher.finish()
        finished = true
        #expect(result.status == 0)
        #expect(!result.stdout.contains(PostgreSQLScratchServer.password))
    }

    @Test func demoRunsOnAnEmptyDatabaseAndRefusesOneWithItems() throws {
        let sandbox = try TodoSandbox()
        let store = try storeURL()
        let demo = try sandbox.runTodo(["demo", "--count", "300", "--store", store])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("total"))
        // The walkthrough deletes what it made; a store holding the user's items is refused.
        #expect(try sandbox.runTodo(["list", "--store", store]).lines == ["No items."])
        #expect(try sandbox.runTodo(["add", "Milk", "--store", store]).status == 0)
        let again = try sandbox.runTodo(["demo", "--count", "300", "--store", store])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already holds"))
    }

    /// Polls the program's output until `condition` holds of its lines (60 s at most).
    private func wait(for program: RunningProgram, _ condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOf: program.outURL, encoding: .utf8)) ?? ""
            if condition(text.split(separator: "\n").map(String.init)) { return true }
            if !program.isRunning { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }
}
