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
        } catch let failure as SQLiteInPlaceMigrationFailure {
            throw Self.error(failure.reason, underlying: nil, path: path)
        } catch {
            throw Self.error("\(error)", underlying: error, path: path)
        }
    }

    static func error(_ reason: String, underlying: (any Error)?, path: String) -> NSError {
        var info: [String: Any] = ["reason": "Cannot migrate store in-place: \(reason)", "sourceURL": URL(fileURLWithPath: path)]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return CoreDataError.make(NSMigrationError, "Cannot migrate store in-place: \(reason)", userInfo: info)
    }

    private func migrate(_ db: Database) throws {
        // Work an earlier migration deferred is done first: its leftover columns would meet this
        // migration's.
        if SQLiteDeferredMigration.isPending(in: metadata) {
            try SQLiteDeferredMigration.rebuildTables(of: source.entitiesInStoreOrder, in: db)
        }
        let keys = try PrimaryKeyRows(db)
        // The number each source entity has in this file (a renamed entity keeps its row's name).
        var oldNumber: [ObjectIdentifier: Int64] = [:]
        for entity in source.entitiesInStoreOrder {
            oldNumber[ObjectIdentifier(entity)] =
                keys.number(named: entity.name!) ?? entity.renamingIdentifier.flatMap(keys.number(named:))
                ?? Int64(entity.layout!.entityNumber)
        }
        let mappings = Dictionary(
            mapping.entityMappings.compactMap { m in m.destinationEntityName.map { ($0, m) } }, uniquingKeysWith: { first, _ in first })
        var sourceOf: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in destination.entitiesInStoreOrder {
            if let name = mappings[entity.name!]?.sourceEntityName, let from = source.entitiesByName[name] {
                sourceOf[ObjectIdentifier(entity)] = from
            }
        }
        // Old entity number → new, for every entity carried over.
        var renumbering: [Int64: Int64] = [:]
        for entity in destination.entitiesInStoreOrder {
            if let from = sourceOf[ObjectIdentifier(entity)] {
                renumbering[oldNumber[ObjectIdentifier(from)]!] = Int64(entity.layout!.entityNumber)
            }
        }
        let context = Context(
            source: source, mappings: mappings, sourceOf: sourceOf, oldNumber: oldNumber, renumbering: renumbering)

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
            for statement in alteration.statements { try db.execute(sql: statement.sql, arguments: statement.arguments) }
            try table.checkRequiredValues(in: table.root.layout!.tableName, db: db)
            progress?.completedUnitCount += 1
        }
        for table in rebuilt {
            let name = table.root.layout!.tableName
            log.step("rebuilding table \(name)")
            try db.execute(sql: statements.first { $0.hasPrefix("CREATE TABLE \(name) (") }!)
            if let fill = try table.fillStatement(into: name, renamed: renamed) {
                try db.execute(sql: fill.sql, arguments: fill.arguments)
                try table.checkRequiredValues(in: name, db: db)
            }
            progress?.completedUnitCount += 1
        }
        try joins.build(in: db, statements: statements, renamed: renamed)
        for temporary in renamed.values { try db.execute(sql: "DROP TABLE \(temporary)") }
        progress?.completedUnitCount += 1
        try Self.recreateIndexes(statements, keptTables: keptTables, db: db)
        progress?.completedUnitCount += 1
        try rewritePrimaryKeys(keys: keys, context: context, db: db)
        try renumberHistory(renumbering, db: db)
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

    /// One row per destination entity. A row whose number did not change keeps its name, as Core
    /// Data keeps a renamed entity's old name; the others get the entity's. Each root's counter
    /// is the highest of the tables it took rows from, so new keys never meet old ones.
    private func rewritePrimaryKeys(keys: PrimaryKeyRows, context: Context, db: Database) throws {
        // The history's rows (16001 and up, an ancillary model's) keep their counters.
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < ?", arguments: [SQLiteHistorySchema.changeEntity])
        for entity in destination.entitiesInStoreOrder {
            let number = Int64(entity.layout!.entityNumber)
            var name = entity.name!
            var max: Int64 = 0
            if let from = context.sourceOf[ObjectIdentifier(entity)], let old = context.oldNumber[ObjectIdentifier(from)] {
                if old == number, let kept = keys.rows[old]?.name { name = kept }
                max = keys.rows[old]?.max ?? 0
            }
            if entity.superentity == nil {
                for member in [entity] + ModelLayoutBuilder.descendants(of: entity) {
                    guard let from = context.sourceOf[ObjectIdentifier(member)],
                        let rootNumber = context.oldNumber[ObjectIdentifier(from.rootEntity)]
                    else { continue }
                    max = Swift.max(max, keys.rows[rootNumber]?.max ?? 0)
                }
            }
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                arguments: [number, name, entity.superentity.map { Int64($0.layout!.entityNumber) } ?? 0, max])
        }
    }

    /// The history names entities by number too.
    private func renumberHistory(_ renumbering: [Int64: Int64], db: Database) throws {
        let moved = renumbering.filter { $0.key != $0.value }
        guard !moved.isEmpty, try db.tableExists("ACHANGE") else { return }
        let cases = moved.keys.sorted().map { "WHEN \($0) THEN \(moved[$0]!)" }.joined(separator: " ")
        try db.execute(sql: "UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases) ELSE ZENTITY END")
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

    /// What every table's migration needs to know of the models.
    struct Context {
        let source: NSManagedObjectModel
        let mappings: [String: NSEntityMapping]
        let sourceOf: [ObjectIdentifier: NSEntityDescription]
        let oldNumber: [ObjectIdentifier: Int64]
        let renumbering: [Int64: Int64]

        /// The source property a destination property of `entity` (or of a subentity inheriting it)
        /// takes its value from, as the mapping says.
        func sourceProperty(of property: NSPropertyDescription, in entity: NSEntityDescription) -> NSPropertyDescription? {
            for member in [entity] + ModelLayoutBuilder.descendants(of: entity) {
                guard let entityMapping = mappings[member.name!], let from = sourceOf[ObjectIdentifier(member)] else { continue }
                let propertyMapping = property is NSAttributeDescription
                    ? entityMapping.attributeMappingsByName[property.name] : entityMapping.relationshipMappingsByName[property.name]
                guard let name = propertyMapping?.valueExpression.flatMap(Self.sourceName) else { continue }
                return from.propertiesByName[name]
            }
            return nil
        }

        /// The source property name an inferred value expression reads.
        static func sourceName(_ expression: NSExpression) -> String? {
            switch expression.storage {
            case .operandKeyPath(let operand, let key):
                if case .variable("source") = operand.storage { return key }
                return nil
            case .method(_, _, let arguments), .function(_, let arguments):
                for argument in arguments {
                    if case .constant(let value as String) = argument.storage { return value }
                }
                return nil
            default:
                return nil
            }
        }

        /// `CASE column WHEN old THEN new … END`, or the column when no number changes.
        func renumbered(_ column: String) -> String {
            guard renumbering.contains(where: { $0.key != $0.value }) else { return column }
            let cases = renumbering.keys.sorted().map { "WHEN \($0) THEN \(renumbering[$0]!)" }.joined(separator: " ")
            return "CASE \(column) \(cases) ELSE \(column) END"
        }
    }
}

/// The rows of `Z_PRIMARYKEY` before the migration.
private struct PrimaryKeyRows {
    var rows: [Int64: (name: String, max: Int64)] = [:]

    init(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < ?", arguments: [SQLiteHistorySchema.changeEntity]) {
            guard let number = Int64.fromDatabaseValue(row["Z_ENT"]) else { continue }
            rows[number] = (String.fromDatabaseValue(row["Z_NAME"]) ?? "", Int64.fromDatabaseValue(row["Z_MAX"]) ?? 0)
        }
    }

    func number(named name: String) -> Int64? { rows.first { $0.value.name == name }?.key }
}
