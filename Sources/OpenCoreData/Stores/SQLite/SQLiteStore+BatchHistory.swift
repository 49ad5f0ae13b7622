import GRDB
import GRDBSQLite

/// One transaction of persistent history as a SQLite write gathers it: a save's
/// (`SQLiteWriter`) or a batch request's, whose rows it touched are recorded in the request's own
/// SQLite transaction (Apple's Core Data does the same through temporary triggers).
struct BatchHistory {
    var draft = HistoryTransactionDraft()
    /// Preserved values of deleted rows, by index in `draft.changes`.
    var tombstones: [Int: [DatabaseValue]] = [:]

    mutating func add(_ entity: NSEntityDescription, primaryKey: Int64, _ type: NSPersistentHistoryChangeType, changedSlots: [Int]? = nil) {
        draft.changes.append(HistoryChangeDraft(entity: entity, primaryKey: primaryKey, changeType: type, changedSlots: changedSlots))
    }
}

extension SQLiteStore {
    /// A history to fill for a batch request `writer` runs, when the store records history.
    func batchHistory(_ writer: HistoryAuthor) -> BatchHistory? {
        historyTracked ? BatchHistory(draft: HistoryTransactionDraft(author: writer.author, contextName: writer.contextName)) : nil
    }

    /// Writes a batch request's history, if it recorded any change.
    func writeBatchHistory(_ history: BatchHistory?, _ db: Database) throws {
        guard let history else { return }
        try SQLiteHistoryWriter(store: self, db: db).write(history.draft, tombstones: history.tombstones)
    }

    /// The columns of the preserved attributes of `root`'s hierarchy, each once: what a batch
    /// delete returns of its rows for their tombstones.
    func tombstoneColumns(ofHierarchy root: NSEntityDescription) -> [String] {
        var columns: [String] = []
        for entity in [root] + ModelLayoutBuilder.descendants(of: root) {
            for preserved in HistoryTombstones.columns(of: entity) where !columns.contains(preserved.column) {
                columns.append(preserved.column)
            }
        }
        return columns
    }

    /// Steps `statement`, whose rows start with `Z_PK, Z_ENT` and go on with `tombstoneColumns`,
    /// recording each row as a change of `type`; returns how many rows it stepped and, when
    /// `collectingIDs`, their object IDs (an object per row, which a count result does not need).
    func stepRecordingHistory(
        _ statement: Statement, db: Database, entity fallback: NSEntityDescription, type: NSPersistentHistoryChangeType,
        changedSlots: [Int]? = nil, tombstoneColumns: [String] = [], collectingIDs: Bool = false, into history: inout BatchHistory
    ) throws -> (count: Int, ids: [NSManagedObjectID]) {
        var ids: [NSManagedObjectID] = []
        var count = 0
        // Per entity met: its store number, and the returned column of each of its preserved
        // attributes (worked out once, not per row).
        var last: (storeNumber: Int32, entity: NSEntityDescription, tombstoneIndexes: [Int?])?
        try stepRows(statement, db: db) { handle in
            let number = sqlite3_column_int(handle, 1)
            if last?.storeNumber != number {
                let rowEntity = entity(number: modelNumber(number)) ?? fallback
                let indexes = type == .delete && !tombstoneColumns.isEmpty
                    ? HistoryTombstones.columns(of: rowEntity).map { tombstoneColumns.firstIndex(of: $0.column) } : []
                last = (number, rowEntity, indexes)
            }
            let rowEntity = last!.entity
            let key = sqlite3_column_int64(handle, 0)
            if !last!.tombstoneIndexes.isEmpty {
                history.tombstones[history.draft.changes.count] = last!.tombstoneIndexes.map { index in
                    index.map { DatabaseValue(sqliteStatement: handle, index: Int32(2 + $0)) } ?? .null
                }
            }
            history.add(rowEntity, primaryKey: key, type, changedSlots: changedSlots)
            count += 1
            if collectingIDs { ids.append(NSManagedObjectID(entity: rowEntity, store: self, primaryKey: key)) }
        }
        return (count, ids)
    }
}
