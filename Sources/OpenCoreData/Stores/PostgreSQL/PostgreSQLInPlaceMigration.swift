import Foundation

/// A lightweight migration of a PostgreSQL store, run in SQL on the server as the SQLite store
/// runs one in its file (`SQLiteInPlaceMigration`), from the same store-neutral plans: a table
/// that only gains or renames columns is altered where it is, each other table whose entities
/// changed is rebuilt (filled from the old one, which waits in a schema of its own meanwhile),
/// tables of new entities are created and those of removed ones dropped, many-to-many tables
/// follow their relationships, then `Z_PRIMARYKEY`, the history's entity numbers and
/// `Z_METADATA` (same UUID) are rewritten.
///
/// PostgreSQL's DDL is transactional: all of it is one transaction, so a migration that fails, or
/// a server or process that stops meanwhile, leaves the store as it was, and every other process
/// sees the old store or the new one, never a mixture.
struct PostgreSQLInPlaceMigration {
    /// Frozen, with their table and column names.
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel
    let mapping: NSMappingModel
    /// The store's metadata, kept but for what describes the model.
    let metadata: [String: Any]
    let uuid: String
    /// The store's URL, for the errors.
    let url: URL
    /// Advanced one unit per table altered or rebuilt and one per closing step.
    var progress: Progress?
    var log = MigrationLog.off

    /// Migrates the store whose schema is first on `session`'s search path; the caller runs it in
    /// a transaction.
    ///
    /// - Throws: `NSMigrationError` (134110), "Cannot migrate store in-place: …", with the
    ///   server's error (if any) as `NSUnderlyingError`; a lost connection as it is.
    func run(on session: any PostgreSQLSession) throws {
        do {
            try migrate(session)
        } catch let failure as InPlaceMigrationFailure {
            throw InPlaceMigrationFailure.error(failure.reason, underlying: nil, url: url)
        } catch let error as PostgreSQLServerError {
            throw InPlaceMigrationFailure.error("\(error)", underlying: error, url: url)
        }
    }

    private func migrate(_ session: any PostgreSQLSession) throws {
        let keys = try Self.primaryKeyRows(session)
        let context = InPlaceMigrationContext(source: source, destination: destination, mapping: mapping, keys: keys)
        let statements = PostgreSQLSchema.statements(for: destination.entitiesInStoreOrder)
        let tables = destination.entitiesInStoreOrder.filter { $0.superentity == nil }.map { TableMigration(root: $0, context: context) }
        let altered = tables.compactMap { table in
            let types = PostgreSQLSchema.columnTypes(of: table.root)
            return table.alterations(columnType: { _, column in types[column] ?? "int8" }).map { (table, $0) }
        }
        let keptTables = Set((tables.filter(\.isUnchanged) + altered.map(\.0)).map { $0.root.layout!.tableName })
        let joins = JoinTableMigration(context: context, destination: destination)

        // Every old table that changes moves to a schema of its own, indexes and all, so that the
        // new one is created under its name with a new store's DDL; the schema goes at the end.
        let holding = "z_migrating_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        _ = try session.run("CREATE SCHEMA \(holding)", [])
        var renamed: [String: String] = [:]
        let sourceTables = source.entitiesInStoreOrder.filter { $0.superentity == nil }.map { $0.layout!.tableName }
        for table in sourceTables + joins.replacedTables where !keptTables.contains(table) && renamed[table] == nil {
            guard try Self.tableExists(table, session) else { continue }
            _ = try session.run("ALTER TABLE \(table) SET SCHEMA \(holding)", [])
            renamed[table] = "\(holding).\(table)"
        }
        let rebuilt = tables.filter { !keptTables.contains($0.root.layout!.tableName) }
        progress?.totalUnitCount = Int64(altered.count + rebuilt.count + 3)
        let count: (String) throws -> Int = { sql in
            if case .integer(let count)? = try session.run(sql, []).rows.first?.first { return Int(count) }
            return 0
        }
        for (table, alteration) in altered {
            log.step("altering table \(table.root.layout!.tableName) where it is: \(alteration.statements.map(\.sql).joined(separator: "; "))")
            for statement in alteration.statements { try Self.run(statement.sql, statement.arguments, session) }
            try table.checkRequiredValues(in: table.root.layout!.tableName, count: count)
            progress?.completedUnitCount += 1
        }
        for table in rebuilt {
            let name = table.root.layout!.tableName
            log.step("rebuilding table \(name)")
            _ = try session.run(statements.first { $0.hasPrefix("CREATE TABLE \(name) (") }!, [])
            if let fill = try table.fillStatement(into: name, renamed: renamed) {
                try Self.run(fill.sql, fill.arguments, session)
                try table.checkRequiredValues(in: name, count: count)
            }
            progress?.completedUnitCount += 1
        }
        for statement in joins.statements(from: statements, renamed: renamed, insertIgnoringDuplicates: { table, columns, select in
            "INSERT INTO \(table) (\(columns)) \(select) ON CONFLICT DO NOTHING"
        }) {
            _ = try session.run(statement, [])
        }
        _ = try session.run("DROP SCHEMA \(holding) CASCADE", [])
        progress?.completedUnitCount += 1
        try Self.recreateIndexes(statements, keptTables: keptTables, session)
        progress?.completedUnitCount += 1
        _ = try session.run("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < $1", [.integer(PostgreSQLHistory.changeEntity)])
        for row in context.primaryKeyRows(of: destination, keys: keys) {
            _ = try session.run(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, $3, $4)",
                [.integer(row.number), .text(row.name), .integer(row.superNumber), .integer(row.max)])
        }
        if let renumbering = context.historyRenumbering, try Self.tableExists("ACHANGE", session) { _ = try session.run(renumbering, []) }
        try rewriteMetadata(session)
        progress?.completedUnitCount += 1
    }

    /// The rows of `Z_PRIMARYKEY` that are the model's (the history's keep their counters).
    private static func primaryKeyRows(_ session: any PostgreSQLSession) throws -> PrimaryKeyRows {
        var keys = PrimaryKeyRows()
        let result = try session.run("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < $1", [.integer(PostgreSQLHistory.changeEntity)])
        for row in result.rows {
            guard row.count == 3, case .integer(let number) = row[0] else { continue }
            let name: String = if case .text(let text) = row[1] { text } else { "" }
            let max: Int64 = if case .integer(let value) = row[2] { value } else { 0 }
            keys.rows[number] = (name, max)
        }
        return keys
    }

    /// Runs a plan's statement, each `?` bound to its argument as the attribute's column holds it.
    private static func run(_ sql: String, _ arguments: [MigrationArgument], _ session: any PostgreSQLSession) throws {
        var binds: [PostgreSQLValue] = []
        var numbered = ""
        var remaining = arguments[...]
        for character in sql {
            if character == "?", let argument = remaining.popFirst() {
                binds.append(PostgreSQLValues.value(argument.value, attribute: argument.attribute))
                // Typed, so that a value read by `INSERT … SELECT` has its column's type.
                numbered += "$\(binds.count)::\(PostgreSQLSchema.type(of: argument.attribute))"
            } else {
                numbered.append(character)
            }
        }
        _ = try session.run(numbered, binds)
    }

    private static func tableExists(_ table: String, _ session: any PostgreSQLSession) throws -> Bool {
        // The store's schema is first on the search path.
        try session.run("SELECT to_regclass($1) IS NOT NULL", [.text(table.lowercased())]).rows.first?.first == .boolean(true)
    }

    /// Every index of the destination model; on a table kept as it was, indexes the model no
    /// longer has are dropped (its primary key's stays).
    private static func recreateIndexes(_ statements: [String], keptTables: Set<String>, _ session: any PostgreSQLSession) throws {
        var wanted = Set<String>()
        for statement in statements where statement.hasPrefix("CREATE INDEX") || statement.hasPrefix("CREATE UNIQUE INDEX") {
            let words = statement.split(separator: " ")
            let name = String(words[statement.hasPrefix("CREATE UNIQUE") ? 3 : 2]).lowercased()
            wanted.insert(name)
            let exists = try session.run(
                "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1", [.text(name)]).rows.isEmpty == false
            if !exists { _ = try session.run(statement, []) }
        }
        for table in keptTables.map({ $0.lowercased() }) {
            let result = try session.run(
                "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname <> $2",
                [.text(table), .text(table + "_pkey")])
            for row in result.rows {
                guard case .text(let name)? = row.first, !wanted.contains(name) else { continue }
                _ = try session.run("DROP INDEX \(name)", [])
            }
        }
    }

    /// The destination model's hashes and identifiers over the store's other metadata, same UUID.
    private func rewriteMetadata(_ session: any PostgreSQLSession) throws {
        var updated = metadata
        let made = StoreMetadata.make(
            for: destination, entities: destination.entitiesInStoreOrder, uuid: uuid, type: PostgreSQLStoreInstaller.typeName)
        for (key, value) in made { updated[key] = value }
        _ = try session.run("UPDATE Z_METADATA SET Z_PLIST = $1 WHERE Z_VERSION = 1", [.bytes(try StoreMetadata.encode(updated))])
    }
}
