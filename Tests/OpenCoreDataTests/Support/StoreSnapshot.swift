import GRDB
import Foundation

/// Every row of every table of a SQLite file, as text, to prove a failed operation changed nothing.
enum StoreSnapshot {
    static func rows(of url: URL) throws -> [String: [String]] {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in
            var result: [String: [String]] = [:]
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            for table in tables {
                result[table] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY 1").map { $0.description }
            }
            return result
        }
    }

    /// The integers the first column of `sql` gives, read from the file at `url` (read-only).
    static func integers(_ sql: String, in url: URL) throws -> [Int64] {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in try Int64.fetchAll(db, sql: sql) }
    }
}
