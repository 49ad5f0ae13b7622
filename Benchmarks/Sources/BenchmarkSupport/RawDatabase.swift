import Foundation
import GRDBSQLite

/// A bare sqlite3 connection: what the raw SQLite way uses, with the pragmas GRDB's pool (and so
/// OpenCoreData's store) sets: WAL and `synchronous = NORMAL`.
public final class RawDatabase {
    public let handle: OpaquePointer

    public static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    public init(url: URL) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw SQLiteError("sqlite3_open_v2 failed (\(code)) for \(url.path)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    public func close() { sqlite3_close_v2(handle) }

    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "code \(code)"
            sqlite3_free(message)
            throw SQLiteError("\(sql): \(text)")
        }
    }

    public func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return statement
    }

    /// Steps a statement that returns no row, and resets it for the next bindings.
    public func stepDone(_ statement: OpaquePointer) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else { throw SQLiteError("sqlite3_step: \(String(cString: sqlite3_errmsg(handle)))") }
    }

    /// Steps a query; false when it is done.
    public func stepRow(_ statement: OpaquePointer) throws -> Bool {
        let code = sqlite3_step(statement)
        if code == SQLITE_ROW { return true }
        guard code == SQLITE_DONE else { throw SQLiteError("sqlite3_step: \(String(cString: sqlite3_errmsg(handle)))") }
        return false
    }

    public static func bindText(_ string: String, _ statement: OpaquePointer, _ index: Int32) {
        var string = string
        string.withUTF8 { buffer in
            _ = buffer.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient)
            }
        }
    }

    public static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// What a raw SQLite call reported.
public struct SQLiteError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
