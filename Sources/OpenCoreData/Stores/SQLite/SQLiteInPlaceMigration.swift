import Foundation
import GRDB

/// A lightweight migration run in SQL inside the store file, as Core Data's in-place migration
/// manager runs one for an inferred mapping: a table that only gains or renames columns is altered
/// in place (`SQLiteTableAlteration`), each other table whose entities changed is rebuilt
/// (created anew, filled from the old one with its rows' primary keys, versions and mapped values,
/// entity numbers renumbered), tables of new entities are created and those of removed ones
/// dropped, many-to-many tables follow their relationships, then `Z_PRIMARYKEY`, the history's
/// entity numbers and `Z_METADATA` (same UUID) are rewritten. All of it in one SQLite transaction:
/// a migration that fails, or a process killed meanwhile, leaves the store as it was.
struct SQLiteInPlaceMigration {
    /// Frozen, with their table and column names.
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel
    let mapping: NSMappingModel
    /// The store's metadata, kept but for what describes the model.
    let metadata: [String: Any]
    let uuid: String
    /// Advanced one unit per table altered or rebuilt and one per closing step (many-to-many
    /// tables, indexes, keys and metadata); made by the caller on its own thread, so that it is a
    /// child of the `Progress` current there.
    var progress: Progress?
    /// Where each table's change is told (`MigrationDebug`).
    var log = MigrationLog.off
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey`: a table that only loses columns
    /// keeps them until `finishDeferredLightweightMigration()`, instead of being copied now.
    var defersTableCopies = false

    /// Migrates the store `db` holds; the caller runs it in a transaction.
    ///
    /// - Throws: `NSMigrationError` (134110), "Cannot migrate store in-place: …", with the SQLite
    ///   error (if any) as `NSUnderlyingError`.
    func run(in db: Database, path: String) throws {
        do {
            try migrate(db)
        } catch let failure as InPlaceMigrationFailure {
            throw InPlaceMigrationFailure.error(failure.reason, underlying: nil, url: URL(fileURLWithPath: path))
        } catch {
            throw InPlaceMigrationFailure.error("\(error)", underlying: error, url: URL(fileURLWithPath: path))
        }
    }

    private func migrate(_ db: Database) throws {
        // Work an earlier migration deferred is done first: its leftover columns would meet this
        // migration's.
        if SQLiteDeferredMigration.isPending(in: metadata) {
            try SQLiteDeferredMigration.rebuildTables(of: source.entitiesInStoreOrder, in: db)
        }
        let keys = try Self.primaryKeyRows(db)
        let context = InPlaceMigrationContext(source: source, destination: destination, mapping: mapping, keys: keys)

        let statements = SQLiteSchema.statements(for: destination.entitiesInStoreOrder)
        let tables = destination.entitiesInStoreOrder.filter { $0.superentity == nil }.map { TableMigration(root: $0, context: context) }
        // Tables that only gain or rename columns are altered where they are; the others that
        // changed are rebuilt.
        let altered = tables.compactMap { table in table.alterations(deferringDrops: defersTableCopies).map { (table, $0) } }
        let deferred = altered.contains { $0.1.leavesColumns }
        let keptTables = Set((tables.filter(\.isUnchanged) + altered.map(\.0)).map { $0.root.layout!.tableName })
        let joins = JoinTableMigration(context: context, destination: destination)
        // Every old table that changes is read under a temporary name, so that the new one is
        // created under its own name with the DDL a new store has (a renamed table's DDL would
        // keep the name SQLite quoted), then dropped with its indexes.
        var renamed: [String: String] = [:]
        let sourceTables = source.entitiesInStoreOrder.filter { $0.superentity == nil }.map { $0.layout!.tableName }
        for table in sourceTables + joins.replacedTables where !keptTables.contains(table) && renamed[table] == nil {
            guard try db.tableExists(table) else { continue }
            let temporary = "Z_MIGRATION_OLD_\(renamed.count)"
            try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(temporary)")
            renamed[table] = temporary
        }
        let rebuilt = tables.filter { !keptTables.contains($0.root.layout!.tableName) }
        progress?.totalUnitCount = Int64(altered.count + rebuilt.count + 3)
        for (table, alteration) in altered {
            log.step("altering table \(table.root.layout!.tableName) where it is: \(alteration.statements.map(\.sql).joined(separator: "; "))")
            for statement in alteration.statements { try db.execute(sql: statement.sql, arguments: Self.arguments(statement.arguments)) }
            try table.checkRequiredValues(in: table.root.layout!.tableName, count: count(db))
            progress?.completedUnitCount += 1
        }
        for table in rebuilt {
            let name = table.root.layout!.tableName
            log.step("rebuilding table \(name)")
            try db.execute(sql: statements.first { $0.hasPrefix("CREATE TABLE \(name) (") }!)
            if let fill = try table.fillStatement(into: name, renamed: renamed) {
                try db.execute(sql: fill.sql, arguments: Self.arguments(fill.arguments))
                try table.checkRequiredValues(in: name, count: count(db))
            }
            progress?.completedUnitCount += 1
        }
        for statement in joins.statements(from: statements, renamed: renamed, insertIgnoringDuplicates: { table, columns, select in
            "INSERT OR IGNORE INTO \(table) (\(columns)) \(select)"
        }) {
            try db.execute(sql: statement)
        }
        for temporary in renamed.values { try db.execute(sql: "DROP TABLE \(temporary)") }
        progress?.completedUnitCount += 1
        try Self.recreateIndexes(statements, keptTables: keptTables, db: db)
        progress?.completedUnitCount += 1
        try rewritePrimaryKeys(context.primaryKeyRows(of: destination, keys: keys), db: db)
        if let renumbering = context.historyRenumbering, try db.tableExists("ACHANGE") { try db.execute(sql: renumbering) }
        try rewriteMetadata(db, deferred: deferred)
        progress?.completedUnitCount += 1
    }

    /// Every index of the destination model; on a table kept as it was, indexes the model no
    /// longer has are dropped.
    static func recreateIndexes(_ statements: [String], keptTables: Set<String>, db: Database) throws {
        var wanted = Set<String>()
        for statement in statements where statement.hasPrefix("CREATE INDEX") || statement.hasPrefix("CREATE UNIQUE INDEX") {
            let words = statement.split(separator: " ")
            let name = String(words[statement.hasPrefix("CREATE UNIQUE") ? 3 : 2])
            wanted.insert(name)
            let exists = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name]) ?? 0
            if exists == 0 { try db.execute(sql: statement) }
        }
        for table in keptTables {
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", arguments: [table])
            for name in names where !wanted.contains(name) { try db.execute(sql: "DROP INDEX \(name)") }
        }
    }

    /// The rows of `Z_PRIMARYKEY` that are the model's (the history's, 16001 and up, an
    /// ancillary model's, keep their counters).
    private static func primaryKeyRows(_ db: Database) throws -> PrimaryKeyRows {
        var keys = PrimaryKeyRows()
        for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < ?", arguments: [SQLiteHistorySchema.changeEntity]) {
            guard let number = Int64.fromDatabaseValue(row["Z_ENT"]) else { continue }
            keys.rows[number] = (String.fromDatabaseValue(row["Z_NAME"]) ?? "", Int64.fromDatabaseValue(row["Z_MAX"]) ?? 0)
        }
        return keys
    }

    private func rewritePrimaryKeys(_ rows: [PrimaryKeyRows.Row], db: Database) throws {
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < ?", arguments: [SQLiteHistorySchema.changeEntity])
        for row in rows {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                arguments: [row.number, row.name, row.superNumber, row.max])
        }
    }

    /// Values as the SQLite store binds them.
    private static func arguments(_ arguments: [MigrationArgument]) -> StatementArguments {
        StatementArguments(arguments.map { $0.value.storedValue(for: $0.attribute) })
    }

    /// Counts rows with a `SELECT count(*)` in `db`.
    private func count(_ db: Database) -> (String) throws -> Int {
        { sql in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    /// The destination model's hashes and identifiers over the store's other metadata, same UUID.
    /// The cached model of the source goes: it no longer describes the file.
    private func rewriteMetadata(_ db: Database, deferred: Bool) throws {
        var updated = metadata
        for (key, value) in SQLiteMetadata.make(for: destination, entities: destination.entitiesInStoreOrder, uuid: uuid) {
            updated[key] = value
        }
        updated[NSPersistentStoreDeferredLightweightMigrationOptionKey] = deferred ? true : nil
        try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?, Z_UUID = ?", arguments: [try StoreMetadata.encode(updated), uuid])
        if try db.tableExists("Z_MODELCACHE") { try db.execute(sql: "DELETE FROM Z_MODELCACHE") }
    }
}
