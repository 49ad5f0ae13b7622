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
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        // Bound here rather than through GRDB's arguments, which convert every value once more
        // (a tenth of a ten-row fetch); the statement is stepped here, never by GRDB.
        for (index, value) in sql.values.enumerated() {
            Self.bind(value, at: Int32(index + 1), to: handle)
        }
        defer { sqlite3_reset(handle) }
        return try body(statement)
    }

    /// Binds `value` to the placeholder `index` (from 1) of `handle`, in the store's column
    /// forms (`SQLValue.databaseValue`): a UUID as its 16 bytes, a decimal as a double; text and
    /// bytes exactly as GRDB binds them, so that a read matches what GRDB wrote.
    private static func bind(_ value: SQLValue, at index: Int32, to handle: OpaquePointer) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let x): sqlite3_bind_int64(handle, index, x)
        case .real(let x): sqlite3_bind_double(handle, index, x)
        case .text(let x): sqlite3_bind_text(handle, index, x, -1, transient)
        case .blob(let x): x.withUnsafeBytes { _ = sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
        case .uuid(let x): withUnsafeBytes(of: x.uuid) { _ = sqlite3_bind_blob(handle, index, $0.baseAddress, 16, transient) }
        case .decimal(let x): sqlite3_bind_double(handle, index, NSDecimalNumber(decimal: x).doubleValue)
        }
    }

    /// SQLite's `SQLITE_TRANSIENT`: SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
