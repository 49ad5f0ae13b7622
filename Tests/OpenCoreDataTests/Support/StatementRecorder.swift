import Foundation
@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// Records the SQL a SQLite or PostgreSQL store runs, to count the queries behind a fetch.
final class StatementRecorder: @unchecked Sendable {
    // @unchecked Sendable: `statements` is only touched under `lock`.
    private let lock = NSLock()
    private var statements: [String] = []
    private let log: SQLStatementLog

    init(_ store: NSPersistentStore) {
        log = (store as? SQLiteStore)?.statementLog ?? (store as! PostgreSQLStore).statementLog
        log.observe { [weak self] sql in self?.append(sql) }
    }

    deinit { log.observe(nil) }

    private func append(_ sql: String) {
        lock.lock()
        statements.append(sql)
        lock.unlock()
    }

    /// The SELECT statements run since the recorder started or was last reset.
    var selects: [String] {
        lock.lock()
        defer { lock.unlock() }
        return statements.filter { $0.hasPrefix("SELECT") }
    }

    /// Every statement run since the recorder started or was last reset.
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return statements
    }

    func reset() {
        lock.lock()
        statements.removeAll()
        lock.unlock()
    }
}
