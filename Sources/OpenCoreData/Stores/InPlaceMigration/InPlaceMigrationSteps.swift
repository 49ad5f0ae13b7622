import Foundation

/// What a store does for the steps of an in-place migration that every store shares, in its own
/// SQL dialect: run a statement, count rows, put an old table out of the new one's way.
package protocol InPlaceMigrationStore {
    /// A new store's DDL for the destination model's entities.
    var schemaStatements: [String] { get }
    /// Runs `sql`, each `?` bound to its argument as the attribute's column holds it.
    func execute(_ sql: String, _ arguments: [MigrationArgument]) throws
    /// The count a `SELECT count(*)` returns.
    func count(_ sql: String) throws -> Int
    func tableExists(_ table: String) throws -> Bool
    /// Moves a table that changes out of its name's way (the `index`th moved); returns the name
    /// to read it under until `dropSetAside`.
    func setAside(_ table: String, index: Int) throws -> String
    /// Drops the tables set aside (their names as `setAside` returned them).
    func dropSetAside(_ names: [String]) throws
    /// Creates the destination's indexes that are missing; on a table kept as it was, drops the
    /// ones the model no longer has.
    func recreateIndexes(keptTables: Set<String>) throws
    /// The store's column type of a new column of `root`'s table.
    func columnType(in root: NSEntityDescription) -> (_ sqliteType: String, _ column: String) -> String
    /// An `INSERT` of `select`'s rows that skips a pair already there.
    func insertIgnoringDuplicates(_ table: String, _ columns: String, _ select: String) -> String
    /// `Z_PRIMARYKEY`'s rows of the model (the history's left out).
    func primaryKeyRows() throws -> PrimaryKeyRows
    /// Replaces the model's rows of `Z_PRIMARYKEY` (the history's stay).
    func replacePrimaryKeys(_ rows: [PrimaryKeyRows.Row]) throws
}

/// The store-neutral part of a lightweight migration in place: tables that only gain or rename
/// columns altered where they are, the others that changed rebuilt from the old ones (set aside
/// meanwhile), many-to-many tables, indexes, `Z_PRIMARYKEY` and the history's entity numbers.
/// The caller runs it in one transaction and rewrites the metadata afterwards.
package struct InPlaceMigrationSteps {
    /// Frozen, with their table and column names.
    package let source: NSManagedObjectModel
    package let destination: NSManagedObjectModel
    let mapping: NSMappingModel
    /// Advanced one unit per table altered or rebuilt and one per closing step but the
    /// metadata's, which the caller counts.
    package var progress: Progress?
    /// Where each table's change is told (`MigrationDebug`).
    var log = MigrationLog.off
    /// A table that only loses columns keeps them (`NSPersistentStoreDeferredLightweightMigrationOptionKey`).
    var defersTableCopies = false

    /// Runs the steps on `store`.
    ///
    /// - Returns: Whether a table kept columns the model no longer has (a deferred copy).
    /// - Throws: `InPlaceMigrationFailure` for a mapping SQL cannot carry out or a required value
    ///   left empty; the store's own errors.
    package func run(on store: some InPlaceMigrationStore) throws -> Bool {
        let keys = try store.primaryKeyRows()
        let context = InPlaceMigrationContext(source: source, destination: destination, mapping: mapping, keys: keys)
        let statements = store.schemaStatements
        let tables = destination.entitiesInStoreOrder.filter { $0.superentity == nil }.map { TableMigration(root: $0, context: context) }
        // Tables that only gain or rename columns are altered where they are; the others that
        // changed are rebuilt.
        let altered = tables.compactMap { table in
            table.alterations(deferringDrops: defersTableCopies, columnType: store.columnType(in: table.root)).map { (table, $0) }
        }
        let deferred = altered.contains { $0.1.leavesColumns }
        let keptTables = Set((tables.filter(\.isUnchanged) + altered.map(\.0)).map { $0.root.tableName })
        let joins = JoinTableMigration(context: context, destination: destination)
        // Every old table that changes is read where it was set aside, so that the new one is
        // created under its own name with the DDL a new store has.
        var renamed: [String: String] = [:]
        let sourceTables = source.entitiesInStoreOrder.filter { $0.superentity == nil }.map { $0.tableName }
        for table in sourceTables + joins.replacedTables where !keptTables.contains(table) && renamed[table] == nil {
            guard try store.tableExists(table) else { continue }
            renamed[table] = try store.setAside(table, index: renamed.count)
        }
        let rebuilt = tables.filter { !keptTables.contains($0.root.tableName) }
        progress?.totalUnitCount = Int64(altered.count + rebuilt.count + 3)
        for (table, alteration) in altered {
            log.step("altering table \(table.root.tableName) where it is: \(alteration.statements.map(\.sql).joined(separator: "; "))")
            for statement in alteration.statements { try store.execute(statement.sql, statement.arguments) }
            try table.checkRequiredValues(in: table.root.tableName, count: store.count)
            progress?.completedUnitCount += 1
        }
        for table in rebuilt {
            let name = table.root.tableName
            log.step("rebuilding table \(name)")
            try store.execute(statements.first { $0.hasPrefix("CREATE TABLE \(name) (") }!, [])
            if let fill = try table.fillStatement(into: name, renamed: renamed) {
                try store.execute(fill.sql, fill.arguments)
                try table.checkRequiredValues(in: name, count: store.count)
            }
            progress?.completedUnitCount += 1
        }
        for statement in joins.statements(from: statements, renamed: renamed, insertIgnoringDuplicates: store.insertIgnoringDuplicates) {
            try store.execute(statement, [])
        }
        try store.dropSetAside(Array(renamed.values))
        progress?.completedUnitCount += 1
        try store.recreateIndexes(keptTables: keptTables)
        progress?.completedUnitCount += 1
        try store.replacePrimaryKeys(context.primaryKeyRows(of: destination, keys: keys))
        if let renumbering = context.historyRenumbering, try store.tableExists("ACHANGE") { try store.execute(renumbering, []) }
        return deferred
    }

    package init(
        source: NSManagedObjectModel, destination: NSManagedObjectModel, mapping: NSMappingModel, progress: Progress? = nil,
        log: MigrationLog = .off, defersTableCopies: Bool = false
    ) {
        self.source = source
        self.destination = destination
        self.mapping = mapping
        self.progress = progress
        self.log = log
        self.defersTableCopies = defersTableCopies
    }
}
