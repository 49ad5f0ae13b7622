import Foundation
import GRDB
import GRDBSQLite

/// Writes one transaction of persistent history into Apple's tables, inside the transaction that
/// wrote the data: a save never commits without its history, nor history without its save.
struct SQLiteHistoryWriter {
    let store: SQLiteStore
    let db: Database

    /// Writes `draft` with its changes; `tombstones` holds, by change index, the preserved values
    /// of deleted rows as their columns held them. Returns the transaction's number, or nil when
    /// nothing changed (no transaction is recorded then, as in Core Data).
    @discardableResult
    func write(_ draft: HistoryTransactionDraft, tombstones: [Int: [DatabaseValue]] = [:]) throws -> Int64? {
        guard !draft.changes.isEmpty else { return nil }
        let number = try allocate(SQLiteHistorySchema.transactionEntity, count: 1)
        try db.execute(
            sql: """
                INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
                VALUES (?, ?, NULL, ?, ?, ?, ?, ?)
                """,
            arguments: [
                number, SQLiteHistorySchema.transactionEntity, try intern(draft.author), try intern(HistoryProcess.bundleID),
                try intern(draft.contextName), try intern(HistoryProcess.processName), Date().timeIntervalSinceReferenceDate,
            ])
        let width = tombstones.values.map(\.count).max() ?? 0
        let tombstoneNames = (0..<width).map { ", ZTOMBSTONE\($0)" }.joined()
        let tombstoneMarks = String(repeating: ", ?", count: width)
        let statement = try db.makeStatement(
            sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneNames)) VALUES (?, ?, NULL, ?, ?, ?, ?, ?\(tombstoneMarks))")
        var key = try allocate(SQLiteHistorySchema.changeEntity, count: draft.changes.count)
        // A batch update's rows share their entity and slots: the bitmap is made once for them.
        var lastBitmap: (entity: NSEntityDescription, slots: [Int]?, value: DatabaseValue)?
        var orders: [ObjectIdentifier: [NSPropertyDescription]] = [:]
        var lastEntity: (entity: NSEntityDescription, number: Int64)?
        // Bound and stepped directly: a save of 100,000 objects writes 100,000 rows here, and
        // GRDB's argument arrays and checks cost more per row than SQLite's insert.
        let handle = statement.sqliteStatement
        for (index, change) in draft.changes.enumerated() {
            var columns: DatabaseValue = .null
            if change.changeType == .update {
                if let lastBitmap, lastBitmap.entity === change.entity, lastBitmap.slots == change.changedSlots {
                    columns = lastBitmap.value
                } else {
                    let slots = change.changedSlots ?? Array(0..<change.entity.properties.count)
                    let properties = change.entity.layout?.properties ?? change.entity.properties
                    let names = Set(slots.compactMap { $0 < properties.count ? properties[$0].name : nil })
                    let order = orders[ObjectIdentifier(change.entity)] ?? HistoryColumnBitmap.bitOrder(of: change.entity)
                    orders[ObjectIdentifier(change.entity)] = order
                    columns = HistoryColumnBitmap.encode(names, order: order).databaseValue
                    lastBitmap = (change.entity, change.changedSlots, columns)
                }
            }
            if lastEntity?.entity !== change.entity { lastEntity = (change.entity, Int64(store.storeNumber(change.entity))) }
            sqlite3_bind_int64(handle, 1, key)
            sqlite3_bind_int64(handle, 2, SQLiteHistorySchema.changeEntity)
            sqlite3_bind_int64(handle, 3, Int64(change.changeType.rawValue))
            sqlite3_bind_int64(handle, 4, lastEntity!.number)
            sqlite3_bind_int64(handle, 5, change.primaryKey)
            sqlite3_bind_int64(handle, 6, number)
            SQLiteBind.bind(columns, to: handle, at: 7)
            let values = tombstones[index] ?? []
            for column in 0..<width { SQLiteBind.bind(column < values.count ? values[column] : .null, to: handle, at: Int32(8 + column)) }
            let code = sqlite3_step(handle)
            sqlite3_reset(handle)
            guard code == SQLITE_DONE else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
            }
            key += 1
        }
        sqlite3_clear_bindings(handle)
        return number
    }

    /// The key of `name` in `ATRANSACTIONSTRING`, added when new; nil for no name.
    private func intern(_ name: String?) throws -> Int64? {
        guard let name else { return nil }
        if let key = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", arguments: [name]) {
            return key
        }
        let key = try allocate(SQLiteHistorySchema.stringEntity, count: 1)
        try db.execute(
            sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)",
            arguments: [key, SQLiteHistorySchema.stringEntity, name])
        return key
    }

    /// Reserves `count` keys of a history entity from its `Z_PRIMARYKEY` row; returns the first.
    private func allocate(_ entity: Int64, count: Int) throws -> Int64 {
        let current = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity]) ?? 0
        let (last, overflow) = current.addingReportingOverflow(Int64(count))
        guard !overflow, current >= 0 else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError, "The store at \(store.url?.path ?? "") can't number new history rows: its Z_PRIMARYKEY says \(current) are taken.")
        }
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [last, entity])
        return current + 1
    }
}
