import BenchmarkSupport
import Foundation
import GRDBSQLite

/// The physical limit: sqlite3's C API, prepared statements, one transaction per write, rows read
/// into plain structs.
final class RawSQLiteWay: BenchmarkWay {
    static let name = "raw SQLite"

    /// A to-do item as a raw SQLite user keeps it.
    struct Item {
        var primaryKey: Int64
        var name: String
        var createdAt: Date
        var done: Bool
    }

    private let db: RawDatabase
    private let data: DataSet
    private var items: [Item] = []
    private var keys: [Int64] = []

    init(databaseURL: URL, fixture: Fixture) throws {
        db = try RawDatabase(url: databaseURL)
        data = fixture.data
    }

    func release() throws {
        items = []
        keys = []
    }

    func close() throws {
        db.close()
    }

    /// The columns every read selects.
    static let columns = "SELECT Z_PK, ZNAME, ZCREATEDAT, ZDONE FROM ZTSPITEM"
    /// The date predicate's condition; `?` is `DataSet.predicateDate`.
    static let dateFilter = " WHERE ZDONE = 0 AND ZCREATEDAT > ?"

    func run(_ benchCase: BenchCase) throws -> Int {
        let columns = Self.columns
        let dateFilter = Self.dateFilter
        switch benchCase {
        case .insert, .typedInsert:
            return try insertAll()
        case .fetchAll, .fetchAsync, .fetchFaults:
            items = try fetchItems(columns)
            return items.count
        case .fetchTen:
            items = try fetchItems(columns + " LIMIT 10")
            return items.count
        case .typedRead:
            items = try fetchItems(columns)
            var touched = 0
            for item in items { touched &+= item.name.utf8.count &+ Int(item.createdAt.timeIntervalSinceReferenceDate) &+ (item.done ? 1 : 0) }
            precondition(touched != 0)
            return items.count
        case .fetchSorted:
            items = try fetchItems(columns + " ORDER BY ZCREATEDAT")
            return items.count
        case .fetchIDs:
            keys = try fetchKeys("SELECT Z_PK FROM ZTSPITEM")
            return keys.count
        case .iterateBatched:
            return try iterate(columns)
        case .predicateDate:
            items = try fetchItems(columns + dateFilter, date: DataSet.predicateDate)
            return items.count
        case .predicateName, .predicateLike, .predicateLikeCaseless, .predicateContains, .predicateMatches:
            items = try fetchItems(columns + " WHERE " + benchCase.rawNameCondition!)
            return items.count
        case .countPredicate:
            let statement = try db.prepare("SELECT COUNT(*) FROM ZTSPITEM" + dateFilter)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_double(statement, 1, DataSet.predicateDate.timeIntervalSinceReferenceDate)
            guard try db.stepRow(statement) else { throw BenchError("COUNT returned no row") }
            return Int(sqlite3_column_int64(statement, 0))
        case .countAll, .countAfterWrites:
            let statement = try db.prepare("SELECT COUNT(*) FROM ZTSPITEM")
            defer { sqlite3_finalize(statement) }
            guard try db.stepRow(statement) else { throw BenchError("COUNT returned no row") }
            return Int(sqlite3_column_int64(statement, 0))
        case .update10k:
            return try updateSome()
        case .delete10k:
            return try deleteSome()
        case .batchUpdate:
            try db.execute("BEGIN IMMEDIATE")
            try db.execute("UPDATE ZTSPITEM SET ZDONE = 1, Z_OPT = Z_OPT + 1")
            let count = Int(sqlite3_changes(db.handle))
            try db.execute("COMMIT")
            return count
        case .batchUpdateIDs:
            try db.execute("BEGIN IMMEDIATE")
            keys = try fetchKeys("UPDATE ZTSPITEM SET ZDONE = 1, Z_OPT = Z_OPT + 1 RETURNING Z_PK")
            try db.execute("COMMIT")
            return keys.count
        case .batchInsert:
            return try insertAll()
        case .batchDelete:
            try db.execute("BEGIN IMMEDIATE")
            try db.execute("DELETE FROM ZTSPITEM WHERE ZDONE = 1")
            let count = Int(sqlite3_changes(db.handle))
            try db.execute("COMMIT")
            return count
        }
    }

    private func insertAll() throws -> Int {
        try db.execute("BEGIN IMMEDIATE")
        let insert = try db.prepare(
            "INSERT INTO ZTSPITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCREATEDAT, ZDONE) VALUES (?, 1, 1, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        for i in 0..<data.count {
            sqlite3_bind_int64(insert, 1, Int64(i + 1))
            RawDatabase.bindText(data.names[i], insert, 2)
            sqlite3_bind_double(insert, 3, data.dates[i].timeIntervalSinceReferenceDate)
            sqlite3_bind_int64(insert, 4, data.done[i] ? 1 : 0)
            try db.stepDone(insert)
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(data.count) WHERE Z_ENT = 1")
        try db.execute("COMMIT")
        return data.count
    }

    private func fetchItems(_ sql: String, date: Date? = nil) throws -> [Item] {
        try Self.rows(of: sql, date: date, in: db, make: Self.item)
    }

    /// The rows `sql` selects, each made into an element by `make`.
    ///
    /// - Parameters:
    ///   - sql: The query; `?` stands for `date` when one is given.
    ///   - date: The value bound to the first parameter, if any.
    ///   - db: The database to read.
    ///   - make: Makes an element of the row the statement is on.
    /// - Returns: The elements, in the order of the rows.
    /// - Throws: SQLite's error.
    static func rows<Element>(
        of sql: String, date: Date?, in db: RawDatabase, make: (OpaquePointer) -> Element
    ) throws -> [Element] {
        let statement = try db.prepare(sql)
        defer { sqlite3_finalize(statement) }
        if let date { sqlite3_bind_double(statement, 1, date.timeIntervalSinceReferenceDate) }
        var elements: [Element] = []
        while try db.stepRow(statement) {
            elements.append(make(statement))
        }
        return elements
    }

    private static func item(_ statement: OpaquePointer) -> Item {
        Item(
            primaryKey: sqlite3_column_int64(statement, 0),
            name: RawDatabase.text(statement, 1),
            createdAt: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 2)),
            done: sqlite3_column_int64(statement, 3) != 0)
    }

    private func fetchKeys(_ sql: String) throws -> [Int64] {
        let statement = try db.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var keys: [Int64] = []
        while try db.stepRow(statement) { keys.append(sqlite3_column_int64(statement, 0)) }
        return keys
    }

    /// Steps the whole table touching each name, keeping nothing: what a cursor costs.
    private func iterate(_ sql: String) throws -> Int {
        let statement = try db.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var count = 0
        var bytes = 0
        while try db.stepRow(statement) {
            bytes &+= Self.item(statement).name.utf8.count
            count += 1
        }
        precondition(bytes > 0)
        return count
    }

    private func updateSome() throws -> Int {
        let select = try db.prepare("SELECT Z_PK, ZDONE FROM ZTSPITEM LIMIT \(BenchCase.changeCount)")
        var rows: [(Int64, Bool)] = []
        while try db.stepRow(select) {
            rows.append((sqlite3_column_int64(select, 0), sqlite3_column_int64(select, 1) != 0))
        }
        sqlite3_finalize(select)
        try db.execute("BEGIN IMMEDIATE")
        let update = try db.prepare("UPDATE ZTSPITEM SET ZDONE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        defer { sqlite3_finalize(update) }
        for (key, done) in rows {
            sqlite3_bind_int64(update, 1, done ? 0 : 1)
            sqlite3_bind_int64(update, 2, key)
            try db.stepDone(update)
        }
        try db.execute("COMMIT")
        return rows.count
    }

    private func deleteSome() throws -> Int {
        let keys = try fetchKeys("SELECT Z_PK FROM ZTSPITEM LIMIT \(BenchCase.changeCount)")
        try db.execute("BEGIN IMMEDIATE")
        let delete = try db.prepare("DELETE FROM ZTSPITEM WHERE Z_PK = ?")
        defer { sqlite3_finalize(delete) }
        for key in keys {
            sqlite3_bind_int64(delete, 1, key)
            try db.stepDone(delete)
        }
        try db.execute("COMMIT")
        return keys.count
    }
}
