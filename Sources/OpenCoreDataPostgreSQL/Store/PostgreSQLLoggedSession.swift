import OpenCoreData

/// A session that reports each statement it runs, as `-com.apple.CoreData.SQLDebug` asks of any
/// store: its SQL, time and row count (level 1) and its bound values (level 3), and to the
/// store's statement observer.
final class PostgreSQLLoggedSession: PostgreSQLSession {
    private let base: any PostgreSQLSession
    private let logging: StoreLogging
    private let statementLog: SQLStatementLog

    init(_ base: any PostgreSQLSession, logging: StoreLogging, statementLog: SQLStatementLog) {
        self.base = base
        self.logging = logging
        self.statementLog = statementLog
    }

    func run(_ sql: String, _ binds: [PostgreSQLValue]) throws -> PostgreSQLResult {
        statementLog.record(sql)
        guard logging.level > 0 else { return try base.run(sql, binds) }
        let started = DispatchTime.now().uptimeNanoseconds
        let result = try base.run(sql, binds)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let isWrite = ["INSERT", "UPDATE", "DELETE"].contains { sql.hasPrefix($0) } && result.rows.isEmpty
        let count = isWrite ? result.affectedRows : result.rows.count
        logging.logger.info("sql: \(sql) — \(String(format: "%.4f", seconds))s, \(count) \(isWrite ? "changed" : "rows")")
        if logging.level >= 3, !binds.isEmpty {
            logging.logger.info("sql bound: \(binds.enumerated().map { "$\($0.offset + 1) = \($0.element)" }.joined(separator: ", "))")
        }
        return result
    }

    func listen(on channel: String, _ handler: @escaping @Sendable (String) -> Void) throws {
        try base.listen(on: channel, handler)
    }

    var isClosed: Bool { base.isClosed }

    func close() { base.close() }
}
