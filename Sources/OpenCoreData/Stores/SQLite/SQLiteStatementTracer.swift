import GRDB
import GRDBSQLite
import Logging

/// Logs every statement one SQLite connection runs, as `-com.apple.CoreData.SQLDebug` asks: its
/// SQL, time and row count (level 1), its bound values (3) and the query plan of a `SELECT` (4).
///
/// It is SQLite's own trace hook (`sqlite3_trace_v2`) on the connection, so it sees every
/// statement whichever code path prepared it, including the ones stepped through the C API. It
/// is installed only when the level is above 0: with logging off the connection keeps the plain
/// statement trace, and no statement or row pays for a check.
final class SQLiteStatementTracer: @unchecked Sendable {
    // @unchecked Sendable: SQLite calls the hook on the thread that steps the connection's
    // statement, and GRDB runs a connection on one thread at a time: `rows` and `explaining` are
    // only touched there.
    private let connection: OpaquePointer
    private let logging: StoreLogging
    private let statementLog: SQLStatementLog
    /// Rows each running statement returned so far, counted by the row events.
    private var rows: [OpaquePointer: Int] = [:]
    /// Set while the hook runs its own `EXPLAIN QUERY PLAN`, whose events are not logged.
    private var explaining = false

    /// Installs a tracer on `db`'s connection.
    ///
    /// - Parameters:
    ///   - db: The connection, while GRDB prepares it.
    ///   - logging: The level and the logger.
    ///   - statementLog: The store's statement observer, which the hook feeds too (a connection
    ///     has one trace hook).
    /// - Returns: The tracer, which the caller keeps alive as long as the connection.
    static func install(on db: Database, logging: StoreLogging, statementLog: SQLStatementLog) -> SQLiteStatementTracer {
        let tracer = SQLiteStatementTracer(connection: db.sqliteConnection!, logging: logging, statementLog: statementLog)
        let mask = UInt32(SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE | SQLITE_TRACE_ROW)
        sqlite3_trace_v2(tracer.connection, mask, { event, context, statement, detail in
            guard let context, let statement else { return 0 }
            Unmanaged<SQLiteStatementTracer>.fromOpaque(context).takeUnretainedValue()
                .handle(event, OpaquePointer(statement), detail)
            return 0
        }, Unmanaged.passUnretained(tracer).toOpaque())
        return tracer
    }

    private init(connection: OpaquePointer, logging: StoreLogging, statementLog: SQLStatementLog) {
        self.connection = connection
        self.logging = logging
        self.statementLog = statementLog
    }

    private func handle(_ event: UInt32, _ statement: OpaquePointer, _ detail: UnsafeMutableRawPointer?) {
        guard !explaining else { return }
        switch Int32(event) {
        case SQLITE_TRACE_STMT:
            statementLog.record(Self.text(of: statement))
            rows[statement] = 0
            if logging.level >= 4 { explainQueryPlan(of: statement) }
        case SQLITE_TRACE_ROW:
            rows[statement, default: 0] += 1
        case SQLITE_TRACE_PROFILE:
            let nanoseconds = detail?.assumingMemoryBound(to: Int64.self).pointee ?? 0
            finished(statement, seconds: Double(nanoseconds) / 1e9)
        default:
            break
        }
    }

    /// Logs a statement that finished: a query with the rows it returned, a write with the rows
    /// it changed.
    private func finished(_ statement: OpaquePointer, seconds: Double) {
        let sql = Self.text(of: statement)
        let returned = rows.removeValue(forKey: statement) ?? 0
        let isWrite = sqlite3_stmt_readonly(statement) == 0 && Self.changesRows(sql)
        let count = isWrite ? Int(sqlite3_changes64(connection)) : returned
        let time = String(format: "%.4f", seconds)
        logging.logger.info("sql: \(sql) — \(time)s, \(count) \(isWrite ? "changed" : "rows")")
        if logging.level >= 3, sqlite3_bind_parameter_count(statement) > 0, let expanded = sqlite3_expanded_sql(statement) {
            defer { sqlite3_free(expanded) }
            logging.logger.info("sql bound: \(String(cString: expanded))")
        }
    }

    /// Logs SQLite's plan for a query about to run, through a statement of its own on the same
    /// connection (the plan depends on the connection's schema and indexes).
    private func explainQueryPlan(of statement: OpaquePointer) {
        let sql = Self.text(of: statement)
        guard sql.prefix(6).uppercased() == "SELECT" || sql.prefix(4).uppercased() == "WITH" else { return }
        explaining = true
        defer { explaining = false }
        var plan: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "EXPLAIN QUERY PLAN " + sql, -1, &plan, nil) == SQLITE_OK, let plan else {
            logging.logger.info("sql plan: unavailable (\(String(cString: sqlite3_errmsg(connection))))")
            return
        }
        defer { sqlite3_finalize(plan) }
        var lines: [String] = []
        while sqlite3_step(plan) == SQLITE_ROW {
            // Columns: id, parent, notused, detail.
            let detail = sqlite3_column_text(plan, 3).map { String(cString: $0) } ?? ""
            lines.append(detail)
        }
        logging.logger.info("sql plan: \(lines.joined(separator: "; "))")
    }

    /// The statement's SQL as written, without surrounding white space.
    private static func text(of statement: OpaquePointer) -> String {
        guard let sql = sqlite3_sql(statement) else { return "" }
        return String(cString: sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `sql` is a statement whose count is SQLite's change count rather than its rows.
    private static func changesRows(_ sql: String) -> Bool {
        let verb = sql.prefix(7).uppercased()
        return verb.hasPrefix("INSERT") || verb.hasPrefix("UPDATE") || verb.hasPrefix("DELETE") || verb.hasPrefix("REPLACE")
    }
}
