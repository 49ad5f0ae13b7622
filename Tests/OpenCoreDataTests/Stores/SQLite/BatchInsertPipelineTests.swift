import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// A batch insert written on another thread while the handler makes the next rows: every row
/// lands with its key and values, and a failure on either side writes nothing.
@Suite struct BatchInsertPipelineTests {
    /// Two chunks and a part, ending in a remainder shorter than one multi-row statement.
    private static let count = 2 * SQLiteStore.pipelineChunk(perStatement: SQLiteStore.rowsPerStatement) + 1_007

    /// A dictionary handler for `count` items "Item i", each a second apart, every other one
    /// done; `badRow`, if given, sets a string as its date.
    private func items(_ count: Int, badRow: Int? = nil) -> NSBatchInsertRequest {
        var row = 0
        return NSBatchInsertRequest(entityName: "TSPItem", dictionaryHandler: { dictionary in
            guard row < count else { return true }
            dictionary["name"] = "Item \(row)"
            dictionary["createdAt"] = row == badRow ? "yesterday" as Any : BatchFixtures.start.addingTimeInterval(Double(row))
            dictionary["done"] = row % 2 == 0
            row += 1
            return false
        })
    }

    @Test func rowsMadeWhileEarlierOnesAreWrittenKeepTheirKeysAndValues() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(3, in: stack.context)
        // The threads that ran the INSERTs, seen by the store's statement log.
        let inserting = Threads()
        (stack.store as! SQLiteStore).statementLog.observe { sql in if sql.hasPrefix("INSERT") { inserting.add(pthread_self()) } }
        defer { (stack.store as! SQLiteStore).statementLog.observe(nil) }
        let request = items(Self.count)
        request.resultType = .objectIDs
        let (result, caller) = try stack.context.performAndWait {
            (try stack.context.execute(request) as! NSBatchInsertResult, pthread_self())
        }
        #expect(inserting.all.contains(caller) == !SecondThread.helps, "on two cores another thread writes the rows")
        let ids = try #require(result.result as? [NSManagedObjectID])
        #expect(ids.map(\.primaryKey) == Array(4...Int64(Self.count + 3)))
        #expect(try StoreSnapshot.integers("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'TSPItem'", in: stack.url) == [Int64(Self.count + 3)])
        let stored = try DatabaseQueue(path: stack.url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME, ZCREATEDAT, ZDONE, Z_OPT FROM ZTSPITEM WHERE Z_PK > 3 ORDER BY Z_PK")
        }
        #expect(stored.count == Self.count)
        let mismatches = stored.enumerated().filter { index, row in
            row["Z_PK"] as Int64 != Int64(index + 4) || row["ZNAME"] as String != "Item \(index)"
                || row["ZCREATEDAT"] as Double != BatchFixtures.start.timeIntervalSinceReferenceDate + Double(index)
                || row["ZDONE"] as Int64 != (index % 2 == 0 ? 1 : 0) || row["Z_OPT"] as Int64 != 1
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) rows differ, the first at index \(mismatches.first?.offset ?? -1)")
    }

    /// The handler's bad value comes after two chunks were written on the other thread: the
    /// transaction rolls them back.
    @Test func aBadValueAfterSeveralChunksWritesNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(3, in: stack.context)
        let before = try StoreSnapshot.rows(of: stack.url)
        let error = BatchFixtures.failure(items(Self.count, badRow: Self.count - 10), in: stack.context)
        #expect(error?.code == NSManagedObjectValidationError)
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
    }

    /// SQLite refuses a row on the writing thread (a trigger here): the error reaches the caller
    /// and nothing is written.
    @Test func aRowRefusedOnTheWritingThreadWritesNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(3, in: stack.context)
        try DatabaseQueue(path: stack.url.path).write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON ZTSPITEM WHEN NEW.ZNAME = 'Item 3000'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """)
        }
        let before = try StoreSnapshot.rows(of: stack.url)
        let error = BatchFixtures.failure(items(Self.count), in: stack.context)
        #expect(error.map { "\($0)".contains("refused by the test") } == true)
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
        // The store still takes a batch insert afterwards.
        let again = try stack.context.performAndWait { try stack.context.execute(items(10)) as! NSBatchInsertResult }
        #expect(again.result as? Bool == true)
    }
}

/// Thread identities, collected from any thread.
private final class Threads: @unchecked Sendable {
    // @unchecked Sendable: `seen` is only touched under `lock`.
    private let lock = NSLock()
    private var seen: [pthread_t] = []
    func add(_ thread: pthread_t) {
        lock.lock()
        seen.append(thread)
        lock.unlock()
    }
    var all: [pthread_t] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }
}
