import Foundation
import GRDB
import GRDBSQLite
import Logging

/// Persistent history in Apple's tables: reading, deleting, and setting it up when the store opens.
extension SQLiteStore {
    /// Sets up history once the store is open: with `NSPersistentHistoryTrackingKey`, adds the
    /// tables to a store that lacks them; without it, a store that holds history opens read-only
    /// (Apple does the same, so that no save goes unrecorded), and the log says so.
    func prepareHistory(entities: [NSEntityDescription]) throws {
        if Self.historyTracking(in: options) {
            if !isReadOnly {
                let tombstones = HistoryTombstones.columnCount(for: persistentStoreCoordinator?.managedObjectModel.entities ?? entities)
                try pool!.barrierWriteWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        if try !SQLiteHistorySchema.exists(in: db) { try SQLiteHistorySchema.create(in: db, tombstones: tombstones) }
                        return .commit
                    }
                }
            }
            historyTracked = true
        } else if !isReadOnly, try storeRead({ try SQLiteHistorySchema.hasRows(in: $0) }) {
            isReadOnly = true
            persistentStoreCoordinator?.storeLogging.logger.warning(
                "Store opened without NSPersistentHistoryTrackingKey but previously had been opened with NSPersistentHistoryTrackingKey - Forcing into Read Only mode store at \(url?.path ?? "?")")
        }
    }

    func readHistory(
        _ boundary: HistoryBoundary, withChanges: Bool, change: (Int, HistoryChangeRecord) -> Void
    ) throws -> [HistoryTransactionRecord] {
        try requireHistory()
        return try historyRead { db in
            let (condition, arguments) = Self.condition(boundary)
            let transactionColumns = try Set(db.columns(in: "ATRANSACTION").map { $0.name.uppercased() })
            // Interned names first, the plain column as Apple's reader falls back to it.
            func name(_ field: String, _ alias: String) -> String {
                let interned = transactionColumns.contains("Z\(field)TS") ? "(SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.Z\(field)TS)" : "NULL"
                let plain = transactionColumns.contains("Z\(field)") ? "t.Z\(field)" : "NULL"
                return "COALESCE(\(interned), \(plain)) AS \(alias)"
            }
            let sql = """
                SELECT t.Z_PK, t.ZTIMESTAMP, \(name("AUTHOR", "author")), \(name("BUNDLEID", "bundle")), \
                \(name("CONTEXTNAME", "context")), \(name("PROCESSID", "process"))
                FROM ATRANSACTION t WHERE \(condition) ORDER BY t.Z_PK
                """
            let transactions = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                HistoryTransactionRecord(
                    number: row[0] ?? 0, timestamp: Date(timeIntervalSinceReferenceDate: row[1] ?? 0),
                    author: row[2], bundleID: row[3], processID: row[5], contextName: row[4])
            }
            guard withChanges, !transactions.isEmpty else { return transactions }
            var positions: [Int64: Int] = [:]
            for (position, transaction) in transactions.enumerated() { positions[transaction.number] = position }
            let tombstones = try SQLiteHistorySchema.tombstoneColumns(in: db)
            let tombstoneList = (0..<tombstones).map { ", c.ZTOMBSTONE\($0)" }.joined()
            // Each transaction gets its changes in key order. When every transaction is selected
            // the table is read in key order, unfiltered; otherwise the transaction index gives
            // the selected ones in (transaction, key) order. Both avoid the sort SQLite adds for
            // `ORDER BY Z_PK` over the index, which took longer than reading the rows.
            let everyTransaction = if case .all = boundary { true } else { false }
            let selection = everyTransaction
                ? "ORDER BY c.Z_PK"
                : "WHERE c.ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition)) ORDER BY c.ZTRANSACTIONID, c.Z_PK"
            // Stepped directly rather than through GRDB's rows: a read of 100,000 changes paid
            // more for each `Row` than SQLite took to read it.
            let statement = try db.makeStatement(sql: """
                SELECT c.Z_PK, c.ZTRANSACTIONID, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS\(tombstoneList)
                FROM ACHANGE c \(selection)
                """)
            if !everyTransaction { statement.setUncheckedArguments(arguments) }
            // Changes come in runs of one transaction and, mostly, one entity.
            var last: (transaction: Int64, position: Int)?
            var lastEntity: (storeNumber: Int32, modelNumber: Int32, tombstoned: [HistoryTombstones.Column])?
            try stepRows(statement, db: db) { handle in
                let transaction = sqlite3_column_int64(handle, 1)
                if last?.transaction != transaction {
                    guard let position = positions[transaction] else { return }
                    last = (transaction, position)
                }
                let type = NSPersistentHistoryChangeType(rawValue: Int(sqlite3_column_int64(handle, 2))) ?? .update
                let storeNumber = sqlite3_column_int(handle, 3)
                if lastEntity?.storeNumber != storeNumber {
                    let number = modelNumber(storeNumber)
                    let preserved = tombstones > 0 ? entity(number: number).map(HistoryTombstones.columns(of:)) ?? [] : []
                    lastEntity = (storeNumber, number, preserved)
                }
                var tombstone: [String: Any]?
                if type == .delete, !lastEntity!.tombstoned.isEmpty {
                    tombstone = Self.tombstone(handle, from: 6, preserved: lastEntity!.tombstoned)
                }
                let columns = sqlite3_column_type(handle, 5) == SQLITE_NULL ? nil : SQLiteColumn.blob(handle, 5)
                change(last!.position, HistoryChangeRecord(
                    changeID: sqlite3_column_int64(handle, 0), entityNumber: lastEntity!.modelNumber,
                    primaryKey: sqlite3_column_int64(handle, 4), changeType: type, columns: columns, tombstone: tombstone))
            }
            return transactions
        }
    }

    func removeHistory(_ boundary: HistoryBoundary) throws -> Int {
        try requireHistory()
        guard !isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store at \(url!.path) was opened read-only.")
        }
        let (condition, arguments) = Self.condition(boundary)
        return try pool!.write { db in
            try db.execute(
                sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", arguments: arguments)
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", arguments: arguments)
            return db.changesCount
        }
    }

    func keptHistoryRange() throws -> ClosedRange<Int64>? {
        try requireHistory()
        return try historyRead { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT min(Z_PK), max(Z_PK) FROM ATRANSACTION"),
                let low: Int64 = row[0], let high: Int64 = row[1]
            else { return nil }
            return low...high
        }
    }

    func lastHistoryTransactionNumber() throws -> Int64 {
        try requireHistory()
        return try historyRead { db in
            try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [HistoryEntityNumbers.transaction]) ?? 0
        }
    }

    private func requireHistory() throws {
        guard historyTracked else { throw Self.historyNotTracked() }
    }

    /// A read of the history tables; a store opened read-only with the key but without the
    /// tables fails as Apple's does, naming the missing table.
    private func historyRead<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try storeRead(body)
        } catch let error as DatabaseError {
            throw SQLiteFileCheck.operationError(error, path: url!.path, timeout: Self.timeout(in: options))
        }
    }

    /// The SQL condition on `ATRANSACTION t` that selects `boundary`'s transactions.
    private static func condition(_ boundary: HistoryBoundary) -> (String, StatementArguments) {
        switch boundary {
        case .all: ("1", [])
        case .afterNumber(let number): ("t.Z_PK > ?", [number])
        case .beforeNumber(let number): ("t.Z_PK < ?", [number])
        case .afterDate(let date): ("t.ZTIMESTAMP > ?", [date.timeIntervalSinceReferenceDate])
        case .beforeDate(let date): ("t.ZTIMESTAMP < ?", [date.timeIntervalSinceReferenceDate])
        }
    }

    /// The preserved values of a deleted object, read from the change row's tombstone columns
    /// from `start` on: NULL columns left out, nil when none remains.
    private static func tombstone(_ handle: OpaquePointer, from start: Int32, preserved: [HistoryTombstones.Column]) -> [String: Any]? {
        var values: [String: Any] = [:]
        let columns = sqlite3_column_count(handle)
        for (offset, column) in preserved.enumerated() where start + Int32(offset) < columns {
            let stored = DatabaseValue(sqliteStatement: handle, index: start + Int32(offset))
            if let value = HistoryTombstoneValue.decode(stored, as: column.attribute) { HistoryTombstones.add(value, for: column, to: &values) }
        }
        return values.isEmpty ? nil : values
    }
}

/// A tombstone column's value as the public value of its attribute: the column holds what the
/// attribute's own column held (a date as seconds since 2001, a UUID as 16 bytes…).
enum HistoryTombstoneValue {
    static func decode(_ stored: DatabaseValue, as attribute: NSAttributeDescription) -> Any? {
        switch stored.storage {
        case .null: return nil
        case .int64(let number):
            switch attribute.attributeType {
            case .booleanAttributeType: return number != 0
            case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: Double(number))
            case .doubleAttributeType, .floatAttributeType: return Double(number)
            case .decimalAttributeType: return NSDecimalNumber(value: number)
            default: return NSNumber(value: number)
            }
        case .double(let number):
            switch attribute.attributeType {
            case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: number)
            case .decimalAttributeType: return NSDecimalNumber(value: number)
            default: return number
            }
        case .string(let text):
            switch attribute.attributeType {
            case .URIAttributeType: return URL(string: text) ?? text
            case .decimalAttributeType: return NSDecimalNumber(string: text)
            default: return text
            }
        case .blob(let data):
            if attribute.attributeType == .UUIDAttributeType, data.count == 16 {
                return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            }
            return data
        }
    }
}
