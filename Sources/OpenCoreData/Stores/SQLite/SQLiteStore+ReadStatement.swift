import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// The most values a read's SQL may bind and still be kept prepared. The text of a fetch
    /// depends on its predicate's shape, not on its values, except where a list is spelled out
    /// (`IN (?, ?, …)`): keeping only short lists bounds how many statements a connection keeps.
    static var mostValuesOfAKeptStatement: Int { 16 }

    /// Runs `body` with a statement for `sql`, its values bound, and resets the statement after.
    ///
    /// A fetch an app repeats (a list refreshed, a lookup by key) has the same text every time:
    /// its statement is prepared once per reader connection and kept (GRDB's statement cache),
    /// which skips SQLite's parser and GRDB's authorizer, a fifth of a ten-row fetch. Reset
    /// afterwards, whatever `body` did: a statement left mid-step would keep its connection's
    /// snapshot and, on reuse, report the old step's error.
    ///
    /// - Parameters:
    ///   - sql: The statement's text and values.
    ///   - db: The connection of the running read.
    ///   - body: Steps the statement.
    /// - Returns: What `body` returns.
    /// - Throws: SQLite's error preparing the statement, or what `body` throws.
    func withReadStatement<T>(_ sql: SQLFragment, db: Database, _ body: (Statement) throws -> T) throws -> T {
        let statement =
            sql.values.count <= Self.mostValuesOfAKeptStatement
            ? try db.cachedStatement(sql: sql.sql) : try db.makeStatement(sql: sql.sql)
        let handle = statement.sqliteStatement
        // Left reset by its last use (below); the text has a placeholder per value, each bound.
        // Bound here rather than through GRDB's arguments, which convert every value once more
        // (a tenth of a ten-row fetch); the statement is stepped here, never by GRDB.
        for (index, value) in sql.values.enumerated() {
            SQLiteBind.bind(value, to: handle, at: Int32(index + 1))
        }
        defer { sqlite3_reset(handle) }
        return try body(statement)
    }
}

extension SQLiteBind {
    /// Binds a predicate's or a limit's `value` to the placeholder `index` (from 1) in the forms
    /// the store writes its columns (`SlotValue`): a UUID as its 16 bytes, a decimal as a double,
    /// text with its full length.
    static func bind(_ value: SQLValue, to statement: OpaquePointer, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(statement, index)
        case .integer(let x): sqlite3_bind_int64(statement, index, x)
        case .real(let x): sqlite3_bind_double(statement, index, x)
        case .text(let x): bindText(x, statement, index)
        case .blob(let x): _ = x.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
        case .uuid(let x): _ = withUnsafeBytes(of: x.uuid) { sqlite3_bind_blob(statement, index, $0.baseAddress, 16, transient) }
        case .decimal(let x): sqlite3_bind_double(statement, index, NSDecimalNumber(decimal: x).doubleValue)
        }
    }
}
