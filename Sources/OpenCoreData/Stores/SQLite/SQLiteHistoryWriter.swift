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
        let number = try allocate(HistoryEntityNumbers.transaction, count: 1)
        try insertTransaction(number, of: draft)
        let width = tombstones.values.map(\.count).max() ?? 0
        let tombstoneNames = (0..<width).map { ", ZTOMBSTONE\($0)" }.joined()
        let tombstoneMarks = String(repeating: ", ?", count: width)
        let statement = try db.makeStatement(
            sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneNames)) VALUES (?, ?, NULL, ?, ?, ?, ?, ?\(tombstoneMarks))")
        var key = try allocate(HistoryEntityNumbers.change, count: draft.changes.count)
        // A batch update's rows share their entity and slots: the bitmap is made once for them.
        var lastBitmap: (entity: NSEntityDescription, slots: [Int]?, value: DatabaseValue)?
        var orders: [ObjectIdentifier: [NSPropertyDescription]] = [:]
        var lastEntity: (entity: NSEntityDescription, number: Int64)?
        // Bound and stepped directly: a save of 100,000 objects writes 100,000 rows here, and
        // GRDB's argument arrays and checks cost more per row than SQLite's insert.
        let handle = statement.sqliteStatement
        let changes = draft.changes
        let order = Self.writingOrder(changes)
        var position = 0
        while position < order.count {
            let index = order[position]
            let change = changes[index]
            if change.changeType == .insert {
                let end = Self.endOfInsertRun(changes, order, from: position)
                if end - position >= Self.shortestWrittenRun {
                    try writeInserts(
                        of: change.entity, keys: change.primaryKey...changes[order[end - 1]].primaryKey, firstChange: key, transaction: number)
                    key += Int64(end - position)
                    position = end
                    continue
                }
            }
            position += 1
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
            sqlite3_bind_int64(handle, 2, HistoryEntityNumbers.change)
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

    /// Runs of inserts shorter than this are written row by row: the statement of a run costs
    /// more to prepare than a few rows do to bind.
    static let shortestWrittenRun = 32

    /// The order changes are written in: the inserts first, grouped by entity (as the save
    /// wrote their rows, and as Apple's triggers record them), then the other changes in theirs.
    /// The entity's group is looked up only when the entity changes: a save of a million objects
    /// is mostly long runs of one entity, and a lookup per change cost it a tenth of its history.
    static func writingOrder(_ changes: [HistoryChangeDraft]) -> [Int] {
        var groups: [[Int]] = []
        var groupOf: [ObjectIdentifier: Int] = [:]
        var last: (entity: ObjectIdentifier, group: Int)?
        var others: [Int] = []
        for index in changes.indices {
            guard changes[index].changeType == .insert else {
                others.append(index)
                continue
            }
            let entity = ObjectIdentifier(changes[index].entity)
            if last?.entity != entity {
                let group = groupOf[entity] ?? groups.count
                if group == groups.count {
                    groupOf[entity] = group
                    groups.append([])
                }
                last = (entity, group)
            }
            groups[last!.group].append(index)
        }
        guard groups.count > 1 || !others.isEmpty else { return groups.first ?? [] }
        var order: [Int] = []
        order.reserveCapacity(changes.count)
        for group in groups { order += group }
        order += others
        return order
    }

    /// The end (a position in `order`) of the run of inserts from position `start` on: the same
    /// entity, consecutive keys (a save numbers its new objects of an entity in one block).
    /// Reads the fields it compares in place (a copy of each change retained its entity).
    static func endOfInsertRun(_ changes: [HistoryChangeDraft], _ order: [Int], from start: Int) -> Int {
        let entity = ObjectIdentifier(changes[order[start]].entity)
        var previousKey = changes[order[start]].primaryKey
        var end = start + 1
        while end < order.count {
            let index = order[end]
            guard changes[index].changeType == .insert, ObjectIdentifier(changes[index].entity) == entity,
                changes[index].primaryKey == previousKey &+ 1
            else { break }
            previousKey = changes[index].primaryKey
            end += 1
        }
        return end
    }

    /// The change rows of inserted rows of `entity` whose keys are `keys` (all of them this
    /// save's), numbered from `firstChange`, by one `INSERT … SELECT` over the rows just written:
    /// binding and stepping a statement per row cost a save of 100,000 objects more than SQLite
    /// took to write the rows. The rows take SQLite's own next keys when those are `firstChange`
    /// on: a key given in the statement makes SQLite look each one up first, which cost a
    /// million-row save a quarter of what its history took.
    private func writeInserts(of entity: NSEntityDescription, keys: ClosedRange<Int64>, firstChange: Int64, transaction: Int64) throws {
        let table = entity.layout!.root.tableName
        let arguments: StatementArguments = [
            HistoryEntityNumbers.change, NSPersistentHistoryChangeType.insert.rawValue,
            Int64(store.storeNumber(entity)), transaction, keys.lowerBound, keys.upperBound,
        ]
        let columns = "Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS"
        let values = "?, NULL, ?, ?, Z_PK, ?, NULL FROM \(table) WHERE Z_PK BETWEEN ? AND ? ORDER BY Z_PK"
        let next = try nextChangeKey(made: firstChange)
        if case .taken = next {
            // The table holds a key at or past `firstChange` (Z_PRIMARYKEY behind its rows): the
            // keys are given, so that a clash fails the save rather than renumbering its changes.
            try db.execute(
                sql: "INSERT INTO ACHANGE (Z_PK, \(columns)) SELECT Z_PK + ?, \(values)",
                arguments: [firstChange &- keys.lowerBound] + arguments)
        } else {
            try db.execute(sql: "INSERT INTO ACHANGE (\(columns)) SELECT \(values)", arguments: arguments)
        }
        let (written, last) = (db.changesCount, db.lastInsertedRowID)
        try removePlaceholder(of: next)
        // Every key of the run is a row this save wrote; fewer rows would leave changes unwritten.
        guard written == keys.count, last == firstChange + Int64(keys.count) - 1 else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError, "The store at \(store.url?.path ?? "") lost rows of \(entity.name ?? "?") while writing their history.")
        }
    }

    /// SQLite's next `ACHANGE` key (the largest key plus one) against the one wanted.
    private enum NextChangeKey {
        /// It is the wanted key.
        case wanted
        /// It is, behind a placeholder row at this key (the wanted one less one), to remove once
        /// the rows are in.
        case placeholder(Int64)
        /// The table holds a key at or past the wanted one.
        case taken
    }

    /// Makes SQLite's next `ACHANGE` key `first`, by a placeholder row at `first - 1` when the
    /// largest key is lower (deleted history, a failed save's keys).
    private func nextChangeKey(made first: Int64) throws -> NextChangeKey {
        let highest = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM ACHANGE") ?? 0
        if highest >= first { return .taken }
        guard highest < first - 1 else { return .wanted }
        try db.execute(sql: "INSERT INTO ACHANGE (Z_PK) VALUES (?)", arguments: [first - 1])
        return .placeholder(first - 1)
    }

    private func removePlaceholder(of next: NextChangeKey) throws {
        if case .placeholder(let key) = next { try db.execute(sql: "DELETE FROM ACHANGE WHERE Z_PK = ?", arguments: [key]) }
    }

    /// Writes a batch update's transaction with one change row per row `rows` selects (a
    /// `SELECT Z_PK, Z_ENT` of the entity's table), by one `INSERT … SELECT` run before the
    /// update itself: the rows never travel through Swift, so that history costs a batch update
    /// the change rows SQLite writes, not a round trip per row. Returns how many changes it
    /// wrote; nothing is written (no transaction either) when `rows` selects none.
    ///
    /// - Parameters:
    ///   - draft: Who makes the transaction (its changes are not used).
    ///   - rows: The rows the update will change, selected before it changes them.
    ///   - changed: The names of the properties the update sets, for each row's bitmap.
    ///   - entities: The entities the rows may belong to.
    func writeUpdates(_ draft: HistoryTransactionDraft, rows: SQLFragment, changed: Set<String>, entities: [NSEntityDescription]) throws -> Int {
        let taken = try keysTaken(HistoryEntityNumbers.change)
        let number = try keysTaken(HistoryEntityNumbers.transaction) + 1
        // The change rows take SQLite's own next keys (the largest key plus one), which numbering
        // them in the statement (`row_number()`) would have doubled the cost of. A placeholder
        // at the last key `Z_PRIMARYKEY` gave out makes them follow it when newer rows are gone.
        let next = try nextChangeKey(made: taken + 1)
        // Each entity of a hierarchy has its own bit order, so its own bitmap.
        var bitmap: SQLFragment = "CASE R.Z_ENT"
        for entity in entities {
            let value = HistoryColumnBitmap.encode(changed, order: HistoryColumnBitmap.bitOrder(of: entity))
            bitmap += " WHEN \(raw: Int(store.storeNumber(entity))) THEN \(bind: value)"
        }
        bitmap += " END"
        let insert: SQLFragment = """
            INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) \
            SELECT \(raw: Int(HistoryEntityNumbers.change)), NULL, \(raw: NSPersistentHistoryChangeType.update.rawValue), \
            R.Z_ENT, R.Z_PK, \(bind: number), \(bitmap) FROM (\(rows)) R
            """
        try db.execute(sql: insert.sql, arguments: insert.arguments)
        let count = db.changesCount
        let last = db.lastInsertedRowID
        try removePlaceholder(of: next)
        guard count > 0 else { return 0 }
        try setKeysTaken(HistoryEntityNumbers.change, max(last, taken))
        try setKeysTaken(HistoryEntityNumbers.transaction, number)
        try insertTransaction(number, of: draft)
        return count
    }

    /// The `ATRANSACTION` row of transaction `number`, with its names interned.
    private func insertTransaction(_ number: Int64, of draft: HistoryTransactionDraft) throws {
        try db.execute(
            sql: """
                INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
                VALUES (?, ?, NULL, ?, ?, ?, ?, ?)
                """,
            arguments: [
                number, HistoryEntityNumbers.transaction, try intern(draft.author), try intern(HistoryProcess.bundleID),
                try intern(draft.contextName), try intern(HistoryProcess.processName), Date().timeIntervalSinceReferenceDate,
            ])
    }

    /// The key of `name` in `ATRANSACTIONSTRING`, added when new; nil for no name.
    private func intern(_ name: String?) throws -> Int64? {
        guard let name else { return nil }
        if let key = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", arguments: [name]) {
            return key
        }
        let key = try allocate(HistoryEntityNumbers.string, count: 1)
        try db.execute(
            sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)",
            arguments: [key, HistoryEntityNumbers.string, name])
        return key
    }

    /// The last key of a history entity `Z_PRIMARYKEY` gave out.
    private func keysTaken(_ entity: Int64) throws -> Int64 {
        let current = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity]) ?? 0
        guard current >= 0, current < Int64.max else { throw exhausted(current) }
        return current
    }

    /// Records `last` as the last key of a history entity given out.
    private func setKeysTaken(_ entity: Int64, _ last: Int64) throws {
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [last, entity])
    }

    /// Reserves `count` keys of a history entity from its `Z_PRIMARYKEY` row; returns the first.
    private func allocate(_ entity: Int64, count: Int) throws -> Int64 {
        let current = try keysTaken(entity)
        let (last, overflow) = current.addingReportingOverflow(Int64(count))
        guard !overflow else { throw exhausted(current) }
        try setKeysTaken(entity, last)
        return current + 1
    }

    private func exhausted(_ current: Int64) -> NSError {
        CoreDataError.make(
            NSPersistentStoreSaveError, "The store at \(store.url?.path ?? "") can't number new history rows: its Z_PRIMARYKEY says \(current) are taken.")
    }
}
