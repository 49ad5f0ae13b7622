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
    /// What every store's migration shares: the models, the mapping, the progress and the log;
    /// with `defersTableCopies` (`NSPersistentStoreDeferredLightweightMigrationOptionKey`), a
    /// table that only loses columns keeps them until `finishDeferredLightweightMigration()`.
    let steps: InPlaceMigrationSteps
    /// The store's metadata, kept but for what describes the model.
    let metadata: [String: Any]
    let uuid: String

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
            try SQLiteDeferredMigration.rebuildTables(of: steps.source.entitiesInStoreOrder, in: db)
        }
        let deferred = try steps.run(on: Store(db: db, schemaStatements: SQLiteSchema.statements(for: steps.destination.entitiesInStoreOrder)))
        try rewriteMetadata(db, deferred: deferred)
        steps.progress?.completedUnitCount += 1
    }

    /// The file, for the steps every store shares.
    private struct Store: InPlaceMigrationStore {
        let db: Database
        let schemaStatements: [String]

        func execute(_ sql: String, _ arguments: [MigrationArgument]) throws {
            // Values as the SQLite store binds them.
            try db.execute(sql: sql, arguments: StatementArguments(arguments.map { $0.value.sqlValue(for: $0.attribute, marksExternalData: true).databaseValue }))
        }

        func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }

        func tableExists(_ table: String) throws -> Bool { try db.tableExists(table) }

        /// A temporary name: a renamed table's DDL would keep the name SQLite quoted.
        func setAside(_ table: String, index: Int) throws -> String {
            let temporary = "Z_MIGRATION_OLD_\(index)"
            try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(temporary)")
            return temporary
        }

        /// Each with its indexes.
        func dropSetAside(_ names: [String]) throws {
            for name in names { try db.execute(sql: "DROP TABLE \(name)") }
        }

        func recreateIndexes(keptTables: Set<String>) throws {
            try SQLiteInPlaceMigration.recreateIndexes(schemaStatements, keptTables: keptTables, db: db)
        }

        /// The layout's own SQLite type.
        func columnType(in root: NSEntityDescription) -> (String, String) -> String { { type, _ in type } }

        func insertIgnoringDuplicates(_ table: String, _ columns: String, _ select: String) -> String {
            "INSERT OR IGNORE INTO \(table) (\(columns)) \(select)"
        }

        /// The history's rows (16001 and up, an ancillary model's) keep their counters.
        func primaryKeyRows() throws -> PrimaryKeyRows {
            var keys = PrimaryKeyRows()
            for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < ?", arguments: [HistoryEntityNumbers.change]) {
                guard let number = Int64.fromDatabaseValue(row["Z_ENT"]) else { continue }
                keys.rows[number] = (String.fromDatabaseValue(row["Z_NAME"]) ?? "", Int64.fromDatabaseValue(row["Z_MAX"]) ?? 0)
            }
            return keys
        }

        func replacePrimaryKeys(_ rows: [PrimaryKeyRows.Row]) throws {
            try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < ?", arguments: [HistoryEntityNumbers.change])
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                    arguments: [row.number, row.name, row.superNumber, row.max])
            }
        }
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

    /// The destination model's hashes and identifiers over the store's other metadata, same UUID,
    /// and the destination model in the cache in place of the source's, which no longer
    /// describes the file.
    private func rewriteMetadata(_ db: Database, deferred: Bool) throws {
        var updated = metadata
        for (key, value) in SQLiteMetadata.make(for: steps.destination, entities: steps.destination.entitiesInStoreOrder, uuid: uuid) {
            updated[key] = value
        }
        updated[NSPersistentStoreDeferredLightweightMigrationOptionKey] = deferred ? true : nil
        try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?, Z_UUID = ?", arguments: [try StoreMetadata.encode(updated), uuid])
        if try db.tableExists("Z_MODELCACHE") {
            try db.execute(sql: "DELETE FROM Z_MODELCACHE")
            if let cache = ModelCache.content(for: steps.destination) {
                try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [cache])
            }
        }
    }
}
