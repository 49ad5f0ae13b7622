import Foundation
import GRDB
import GRDBSQLite

/// The read behind an asynchronous fetch: the same statement and row decoding as `fetchRows`, on
/// a reader connection of the pool, with rows counted as they come and the statement interrupted
/// as soon as the fetch is cancelled.
extension SQLiteStore {
    /// The rows of `query`; `meter` counts them (and reports progress) as `sqlite3_step` returns
    /// them.
    ///
    /// - Throws: `StoreReadCancelled` once `monitor` is cancelled: the running statement stops at
    ///   its next few hundred virtual-machine instructions (a SQLite progress handler polls the
    ///   flag), so a million-row read ends within milliseconds instead of running to the end.
    ///
    /// With `chunks`, rows go to `chunks.handOver` as they are read, and the last few are returned.
    func interruptibleRows(_ query: StoreQuery, monitor: StoreReadMonitor, meter: RowMeter, chunks: RowChunks?) throws -> [StoreRow] {
        let sql = try SQLiteQueryBuilder(store: self).select(query)
        let plan = plans[Int32(query.entity.layout!.root.layout!.entityNumber)]!
        try monitor.checkCancellation()
        return try statementRead { db in
            try withReadStatement(sql, db: db) { statement in
                let connection = db.sqliteConnection
                // The reader connection goes back to the pool afterwards: the handler must not
                // outlive this read.
                sqlite3_progress_handler(connection, Self.instructionsBetweenChecks, stopWhenCancelled, Unmanaged.passUnretained(monitor).toOpaque())
                defer { sqlite3_progress_handler(connection, 0, nil, nil) }
                do {
                    return try withExtendedLifetime(monitor) {
                        try readRows(statement, plan: plan, values: query.includesPropertyValues, db: db, chunks: chunks) { _ in meter.rowRead() }
                    }
                } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT && monitor.isCancelled {
                    throw StoreReadCancelled(
                        underlying: NSError(
                            domain: NSSQLiteErrorDomain, code: 9,
                            userInfo: [NSLocalizedDescriptionKey: "interrupted (SQLITE_INTERRUPT): the running statement was stopped"]))
                }
            }
        }
    }

    /// How many SQLite virtual-machine instructions run between two looks at the cancellation
    /// flag: a few microseconds of work, so a cancelled read stops at once, for a cost no profile
    /// shows.
    private static let instructionsBetweenChecks: Int32 = 1_000
}

/// SQLite's progress handler for a monitored read: a non-zero return makes the running
/// `sqlite3_step` stop with `SQLITE_INTERRUPT`.
private func stopWhenCancelled(_ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<StoreReadMonitor>.fromOpaque(context).takeUnretainedValue().pollFromRunningStatement() ? 1 : 0
}
