import OpenCoreData

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
    /// What every store's migration shares: the models, the mapping, the progress and the log.
    let steps: InPlaceMigrationSteps
    /// The store's metadata, kept but for what describes the model.
    let metadata: [String: Any]
    let uuid: String
    /// The store's URL, for the errors.
    let url: URL

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
        // Old tables move to a schema of their own, indexes and all; the schema goes at the end.
        let holding = "z_migrating_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        _ = try session.run("CREATE SCHEMA \(holding)", [])
        _ = try steps.run(
            on: Store(session: session, holding: holding, schemaStatements: PostgreSQLSchema.statements(for: steps.destination.entitiesInStoreOrder)))
        try rewriteMetadata(session)
        steps.progress?.completedUnitCount += 1
    }

    /// The store's schema, for the steps every store shares.
    private struct Store: InPlaceMigrationStore {
        let session: any PostgreSQLSession
        /// Where old tables wait.
        let holding: String
        let schemaStatements: [String]

        func execute(_ sql: String, _ arguments: [MigrationArgument]) throws {
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

        func count(_ sql: String) throws -> Int {
            if case .integer(let count)? = try session.run(sql, []).rows.first?.first { return Int(count) }
            return 0
        }

        func tableExists(_ table: String) throws -> Bool {
            // The store's schema is first on the search path.
            try session.run("SELECT to_regclass($1) IS NOT NULL", [.text(table.lowercased())]).rows.first?.first == .boolean(true)
        }

        func setAside(_ table: String, index: Int) throws -> String {
            _ = try session.run("ALTER TABLE \(table) SET SCHEMA \(holding)", [])
            return "\(holding).\(table)"
        }

        func dropSetAside(_ names: [String]) throws {
            _ = try session.run("DROP SCHEMA \(holding) CASCADE", [])
        }

        /// Index names are kept in lower case; a kept table's primary key index stays.
        func recreateIndexes(keptTables: Set<String>) throws {
            var wanted = Set<String>()
            for statement in schemaStatements where statement.hasPrefix("CREATE INDEX") || statement.hasPrefix("CREATE UNIQUE INDEX") {
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

        func columnType(in root: NSEntityDescription) -> (String, String) -> String {
            let types = PostgreSQLSchema.columnTypes(of: root)
            return { _, column in types[column] ?? "int8" }
        }

        func insertIgnoringDuplicates(_ table: String, _ columns: String, _ select: String) -> String {
            "INSERT INTO \(table) (\(columns)) \(select) ON CONFLICT DO NOTHING"
        }

        func primaryKeyRows() throws -> PrimaryKeyRows {
            var keys = PrimaryKeyRows()
            let result = try session.run("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < $1", [.integer(HistoryEntityNumbers.change)])
            for row in result.rows {
                guard row.count == 3, case .integer(let number) = row[0] else { continue }
                let name: String = if case .text(let text) = row[1] { text } else { "" }
                let max: Int64 = if case .integer(let value) = row[2] { value } else { 0 }
                keys.rows[number] = (name, max)
            }
            return keys
        }

        func replacePrimaryKeys(_ rows: [PrimaryKeyRows.Row]) throws {
            _ = try session.run("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < $1", [.integer(HistoryEntityNumbers.change)])
            for row in rows {
                _ = try session.run(
                    "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, $3, $4)",
                    [.integer(row.number), .text(row.name), .integer(row.superNumber), .integer(row.max)])
            }
        }
    }

    /// The destination model's hashes and identifiers over the store's other metadata, same UUID.
    private func rewriteMetadata(_ session: any PostgreSQLSession) throws {
        var updated = metadata
        let made = StoreMetadata.make(
            for: steps.destination, entities: steps.destination.entitiesInStoreOrder, uuid: uuid, type: PostgreSQLStoreInstaller.typeName)
        for (key, value) in made { updated[key] = value }
        _ = try session.run("UPDATE Z_METADATA SET Z_PLIST = $1 WHERE Z_VERSION = 1", [.bytes(try StoreMetadata.encode(updated))])
    }
}
