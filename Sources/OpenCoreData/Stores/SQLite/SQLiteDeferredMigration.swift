import GRDB

/// The table copies a lightweight migration deferred (`NSPersistentStoreDeferredLightweightMigrationOptionKey`):
/// tables that lost columns keep them, unread, and the metadata says so, until
/// `finishDeferredLightweightMigration()` (or the next migration) rebuilds them with the model's
/// columns only.
enum SQLiteDeferredMigration {
    /// Whether the store's metadata says copies are pending.
    static func isPending(in metadata: [String: Any]?) -> Bool {
        NSPersistentStore.flag(NSPersistentStoreDeferredLightweightMigrationOptionKey, in: metadata)
    }

    /// Rebuilds every table of `entities` that has columns their layout does not: created anew
    /// with the DDL a new store has, filled with the columns it keeps, its indexes re-created.
    /// The caller runs it in a transaction.
    static func rebuildTables(of entities: [NSEntityDescription], in db: Database) throws {
        let statements = SQLiteSchema.statements(for: entities)
        var rebuilt = Set<String>()
        for root in entities where root.superentity == nil {
            let table = root.tableName
            let wanted = ["Z_PK", "Z_ENT", "Z_OPT"] + root.tableColumns.map(\.0)
            guard try db.tableExists(table) else { continue }
            let actual = Set(try db.columns(in: table).map(\.name))
            guard !actual.isSubset(of: Set(wanted)) else { continue }
            let kept = wanted.filter(actual.contains).joined(separator: ", ")
            let old = "Z_MIGRATION_DEFERRED"
            try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(old)")
            try db.execute(sql: statements.first { $0.hasPrefix("CREATE TABLE \(table) (") }!)
            try db.execute(sql: "INSERT INTO \(table) (\(kept)) SELECT \(kept) FROM \(old)")
            try db.execute(sql: "DROP TABLE \(old)")
            rebuilt.insert(table)
        }
        guard !rebuilt.isEmpty else { return }
        try SQLiteInPlaceMigration.recreateIndexes(statements, keptTables: [], db: db)
    }
}

extension SQLiteStore {
    /// Rebuilds the tables a deferred migration left with columns the model no longer has, and
    /// takes the mark out of the metadata, in one transaction.
    func finishDeferredTableCopies() throws {
        guard SQLiteDeferredMigration.isPending(in: metadata), !isReadOnly, let pool else { return }
        let entities = self.entities
        let finished: [String: Any] = try pool.barrierWriteWithoutTransaction { db in
            var result: [String: Any] = [:]
            try db.inTransaction(.immediate) {
                guard let (plist, uuid) = try SQLiteMetadata.row(in: db) else { return .rollback }
                var current = try StoreMetadata.decode(plist: plist, uuid: uuid)
                if SQLiteDeferredMigration.isPending(in: current) {
                    try SQLiteDeferredMigration.rebuildTables(of: entities, in: db)
                    current[NSPersistentStoreDeferredLightweightMigrationOptionKey] = nil
                    try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [try StoreMetadata.encode(current)])
                }
                result = current
                return .commit
            }
            return result
        }
        metadata = finished
    }
}
