import Foundation
import PostgreSQLScratchServer
import GRDB
import Testing

/// `todo` killed with SIGKILL at a random moment of a save, a batched save, a batch insert, a
/// batch update, a batch delete and the creation of its store: afterwards SQLite's integrity check passes, the
/// store holds the state before or after each whole transaction, never one between, and the next
/// command works (a store killed while being created is not left "not a Core Data store").
///
/// Each operation is tried `OPENCOREDATA_CRASH_TRIES` times (5 by default, as CI runs it; the
/// issue's figures came from 30 and more).
@Suite struct CrashConsistencyTests {
    static let tries = ProcessInfo.processInfo.environment["OPENCOREDATA_CRASH_TRIES"].flatMap(Int.init) ?? 5

    /// Starts `todo arguments… --store store` and kills it after a random delay of up to
    /// `within` seconds (or lets it finish first). Returns whether it was killed.
    @discardableResult
    private func killed(_ sandbox: TodoSandbox, _ arguments: [String], store: URL, within: Double) throws -> Bool {
        let process = try SpawnedProgram.start([try TodoSandbox.executable().path] + arguments + ["--store", store.path], stdout: "/dev/null")
        // A kill at a random moment: the randomness is the test, not a wait.
        Thread.sleep(forTimeInterval: Double.random(in: 0...within))
        let wasRunning = process.isRunning
        if wasRunning { process.send(SIGKILL) }
        return wasRunning && process.wait() == 128 + SIGKILL
    }

    /// How long the command takes when nothing kills it, on a store made by `make`: the window
    /// the kills are spread over.
    private func duration(_ sandbox: TodoSandbox, _ arguments: [String], _ make: (String) throws -> URL) throws -> Double {
        let store = try make("Timing-\(UUID().uuidString).sqlite")
        let started = Date()
        #expect(try sandbox.runTodo(arguments + ["--store", store.path]).status == 0)
        return max(0.02, Date().timeIntervalSince(started))
    }

    /// SQLite's verdict on the file and the rows of the items table: (count, done count), and
    /// the updates its persistent history records. Every `todo` process records history in the
    /// transaction of its data, so whatever the kill, the history's inserts less its deletes are
    /// the rows there are: no save without its history, no history without its save.
    private func inspect(_ store: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> (integrity: String, items: Int, done: Int, updates: Int) {
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        return try queue.read { db in
            let integrity = try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? ""
            let items = try Int.fetchOne(db, sql: "SELECT count(*) FROM ZTSPITEM") ?? -1
            let done = try Int.fetchOne(db, sql: "SELECT count(*) FROM ZTSPITEM WHERE ZDONE = 1") ?? -1
            #expect(try db.tableExists("ACHANGE"), "a store without history tables", sourceLocation: sourceLocation)
            let count = { (type: Int) in try Int.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE WHERE ZCHANGETYPE = ?", arguments: [type]) ?? -1 }
            let (inserts, updates, deletes) = (try count(0), try count(1), try count(2))
            #expect(inserts - deletes == items, "history: \(inserts) inserts, \(deletes) deletes; \(items) items", sourceLocation: sourceLocation)
            return (integrity, items, done, updates)
        }
    }

    /// A store of `count` items, the odd ones done.
    private func seeded(_ sandbox: TodoSandbox, _ name: String, count: Int) throws -> URL {
        let store = sandbox.folder.appendingPathComponent(name)
        #expect(try sandbox.runTodo(["populate", "--count", "\(count)", "--store", store.path]).status == 0)
        let ids = stride(from: 1, through: count, by: 2).map(String.init)
        #expect(try sandbox.runTodo(["check"] + ids + ["--store", store.path]).status == 0)
        return store
    }

    /// One save of 20,000 items, and one batch insert of as many: each is one transaction.
    @Test(arguments: [["populate", "--count", "20000"], ["populate", "--count", "20000", "--batch-insert"]])
    func aTransactionKilledAnywhereLeavesTheStoreBeforeOrAfterIt(command: [String]) throws {
        let sandbox = try TodoSandbox()
        var kills = 0
        let window = try duration(sandbox, command) { try seeded(sandbox, $0, count: 10) }
        for attempt in 0..<Self.tries {
            let store = try seeded(sandbox, "Save-\(attempt).sqlite", count: 10)
            if try killed(sandbox, command, store: store, within: window) { kills += 1 }
            let state = try inspect(store)
            #expect(state.integrity == "ok")
            #expect(state.items == 10 || state.items == 20_010, "attempt \(attempt): \(state.items) items")
            #expect(try sandbox.runTodo(["add", "after", "--store", store.path]).status == 0)
        }
        print("\(command.joined(separator: " ")): \(kills) of \(Self.tries) killed while running (window \(window) s)")
        #expect(kills > 0 || Self.tries < 3)
    }

    @Test func aBatchedSaveKilledAnywhereKeepsWholeBatches() throws {
        let sandbox = try TodoSandbox()
        let command = ["populate", "--count", "20000", "--batch", "1000"]
        let window = try duration(sandbox, command) { try seeded(sandbox, $0, count: 10) }
        for attempt in 0..<Self.tries {
            let store = try seeded(sandbox, "Batched-\(attempt).sqlite", count: 10)
            try killed(sandbox, command, store: store, within: window)
            let state = try inspect(store)
            #expect(state.integrity == "ok")
            #expect((state.items - 10) % 1000 == 0 && state.items <= 20_010, "attempt \(attempt): \(state.items) items")
        }
    }

    @Test func aBatchUpdateKilledAnywhereIsAllOrNothing() throws {
        let sandbox = try TodoSandbox()
        let window = try duration(sandbox, ["check-all"]) { try seeded(sandbox, $0, count: 2_000) }
        for attempt in 0..<Self.tries {
            let store = try seeded(sandbox, "Update-\(attempt).sqlite", count: 2_000)
            try killed(sandbox, ["check-all"], store: store, within: window)
            let state = try inspect(store)
            #expect(state.integrity == "ok")
            #expect(state.items == 2_000)
            #expect(state.done == 1_000 || state.done == 2_000, "attempt \(attempt): \(state.done) done")
            // The seeding checked 1,000; Check All records an update of each of the 2,000.
            #expect(state.updates == (state.done == 1_000 ? 1_000 : 3_000), "attempt \(attempt): \(state.updates) updates")
        }
    }

    @Test func aBatchDeleteKilledAnywhereIsAllOrNothing() throws {
        let sandbox = try TodoSandbox()
        let window = try duration(sandbox, ["clear-done"]) { try seeded(sandbox, $0, count: 2_000) }
        for attempt in 0..<Self.tries {
            let store = try seeded(sandbox, "Delete-\(attempt).sqlite", count: 2_000)
            try killed(sandbox, ["clear-done"], store: store, within: window)
            let state = try inspect(store)
            #expect(state.integrity == "ok")
            #expect(state.items == 2_000 || state.items == 1_000, "attempt \(attempt): \(state.items) items")
        }
    }

    /// Killed while it creates the store: the file is absent, empty, or a whole store, and the
    /// next `add` works either way.
    @Test func creatingAStoreKilledAnywhereNeverLeavesItUnusable() throws {
        let sandbox = try TodoSandbox()
        let window = try duration(sandbox, ["add", "first"]) { sandbox.folder.appendingPathComponent($0) }
        for attempt in 0..<(Self.tries * 4) {
            let store = sandbox.folder.appendingPathComponent("Created-\(attempt).sqlite")
            try killed(sandbox, ["add", "first"], store: store, within: window)
            let next = try sandbox.runTodo(["add", "second", "--store", store.path])
            #expect(next.status == 0, "attempt \(attempt): \(next.stderr)")
            let state = try inspect(store)
            #expect(state.integrity == "ok")
            #expect(state.items == 1 || state.items == 2, "attempt \(attempt): \(state.items) items")
        }
    }
}
