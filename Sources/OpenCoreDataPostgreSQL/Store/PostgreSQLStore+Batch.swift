import OpenCoreData

/// `NSBatchUpdateRequest`, `NSBatchDeleteRequest` and `NSBatchInsertRequest` on a PostgreSQL
/// store: each one transaction, in SQL on the server, that notifies listening coordinators when
/// it commits. Rows change under contexts as with the SQLite store: `Z_OPT` rises, so a context
/// holding an old version conflicts at its next save.
extension PostgreSQLStore {
    // MARK: Update

    func runBatchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome {
        let entity = request.entity
        let table = entity.layout!.root.tableName
        // Every value is compiled and checked before the transaction begins, by the relational
        // layer's compiler as on SQLite; its binds come first in the statement.
        var setter = SQLPredicateCompiler(entity: entity, alias: "t", store: self, dialect: PostgreSQLDialect(), names: SQLAliases())
        let (assignments, binds) = PostgreSQLDialect.render(try setter.batchAssignments(request.assignments))
        let query = StoreQuery(
            entity: entity, predicate: request.predicate, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0,
            includesSubentities: request.includesSubentities, includesPropertyValues: false)
        return try write { session in
            let rowsQuery = PostgreSQLQuery(store: self, query: query, leadingBinds: binds)
            var sql = "UPDATE \(table) t SET \(assignments)"
            let statementBinds: [PostgreSQLValue]
            if let direct = try rowsQuery.directCondition() {
                sql += direct.clause
                statementBinds = direct.binds
            } else {
                let chosen = try rowsQuery.selection("t.Z_PK", on: session)
                sql += " WHERE t.Z_PK IN (\(chosen.sql))"
                statementBinds = chosen.binds
            }
            guard needsChangedRows(request.result) else { return StoreBatchOutcome(count: try session.run(sql, statementBinds).affectedRows) }
            let rows = try session.run(sql + " RETURNING t.Z_PK, t.Z_ENT", statementBinds).rows
            var history = batchHistory(request.writer)
            record(rows, .update, slots: request.assignments.map { $0.attribute.slot }, into: &history)
            try writeBatchHistory(history, session)
            return outcome(rows, request.result)
        }
    }

    // MARK: Delete

    private static let doomedTable = "z_batch_delete"

    /// Deletes the rows a batch delete chooses, leaving no dangling reference: a hierarchy no
    /// relationship touches is one DELETE; otherwise the chosen rows go into a temporary table,
    /// cascade rules add their destinations until nothing new comes, a deny rule with a
    /// surviving destination refuses the request, then the rows go and references to them are
    /// cleared (as the SQLite store does, `BatchDeleteGraph`).
    func runBatchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome {
        let root = request.query.entity.layout!.root
        let graph = BatchDeleteGraph(entities: entities)
        let rowsQuery = PostgreSQLQuery(store: self, query: request.query)
        return try write { session in
            if graph.isIsolated(root), request.primaryKeys == nil, !needsChangedRows(request.result), let direct = try rowsQuery.directCondition() {
                let sql = "DELETE FROM \(root.tableName) t\(direct.clause)"
                return StoreBatchOutcome(count: try session.run(sql, direct.binds).affectedRows)
            }
            var chosen = try rowsQuery.selection("t.Z_PK, t.Z_ENT", on: session)
            if let keys = request.primaryKeys {
                chosen.binds.append(.text("{" + keys.map(String.init).joined(separator: ",") + "}"))
                chosen.sql = "SELECT * FROM (\(chosen.sql)) given WHERE z_pk = ANY($\(chosen.binds.count)::int8[])"
            }
            if graph.isIsolated(root) {
                let sql = "DELETE FROM \(root.tableName) WHERE Z_PK IN (SELECT z_pk FROM (\(chosen.sql)) chosen)"
                guard needsChangedRows(request.result) else { return StoreBatchOutcome(count: try session.run(sql, chosen.binds).affectedRows) }
                var history = batchHistory(request.writer)
                var tombstones: [Int: [PostgreSQLValue]] = [:]
                let returning = deletedColumns(of: root, tombstones: history != nil)
                let rows = try session.run(sql + " RETURNING \(returning.joined(separator: ", "))", chosen.binds).rows
                record(rows, .delete, into: &history, tombstones: &tombstones, columns: returning)
                try writeBatchHistory(history, tombstones: tombstones, session)
                return outcome(rows, request.result)
            }
            let doomed = Self.doomedTable
            // Dropped at commit, and with the transaction if it rolls back.
            _ = try session.run("CREATE TEMP TABLE \(doomed) (Z_ROOT int8, Z_PK int8, Z_ENT int8, PRIMARY KEY (Z_ROOT, Z_PK)) ON COMMIT DROP", [])
            _ = try session.run("INSERT INTO \(doomed) SELECT \(root.layout!.entityNumber), z_pk, z_ent FROM (\(chosen.sql)) chosen", chosen.binds)
            let cascades = graph.cascadeSelections(in: doomed).map { "INSERT INTO \(doomed) \($0) ON CONFLICT DO NOTHING" }
            var added = cascades.isEmpty ? 0 : 1
            while added > 0 {
                added = 0
                for sql in cascades { added += try session.run(sql, []).affectedRows }
            }
            for (relationship, sql) in graph.denialChecks(in: doomed) where try !session.run(sql, []).rows.isEmpty {
                throw BatchDeleteGraph.denied(relationship)
            }
            var result = request.result == .objectIDs ? outcome(try session.run("SELECT Z_PK, Z_ENT FROM \(doomed)", []).rows, .objectIDs) : StoreBatchOutcome()
            var count = 0
            var history = batchHistory(request.writer)
            var tombstones: [Int: [PostgreSQLValue]] = [:]
            for hierarchy in graph.roots {
                let returning = deletedColumns(of: hierarchy, tombstones: history != nil)
                let sql = "DELETE FROM \(hierarchy.tableName) WHERE Z_PK IN \(BatchDeleteGraph.doomed(hierarchy, in: doomed)) RETURNING \(returning.joined(separator: ", "))"
                let rows = try session.run(sql, []).rows
                count += rows.count
                record(rows, .delete, into: &history, tombstones: &tombstones, columns: returning)
            }
            for (relationship, sql) in graph.clearingUpdates(in: doomed) {
                record(try session.run(sql + " RETURNING Z_PK, Z_ENT", []).rows, .update, slots: [relationship.slot], into: &history)
            }
            for sql in graph.joinDeletions(in: doomed) { _ = try session.run(sql, []) }
            try writeBatchHistory(history, tombstones: tombstones, session)
            result.count = count
            return result
        }
    }

    // MARK: Insert

    /// Inserts the request's rows in one transaction, under the row lock of the hierarchy's
    /// `Z_PRIMARYKEY` row, so keys follow on from every other process's. Without uniqueness
    /// constraints the rows go many to a statement; with them, one at a time, and a row that
    /// breaks one goes as the merge policy says (`BatchInsertConflict`).
    func runBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        // PostgreSQL binds at most 65,535 parameters to a statement.
        let plan = BatchInsertPlan(request, maxRows: 500, maxParameters: 65_535)
        let (entity, root, table, attributes, constraints) = (plan.entity, plan.root, plan.table, plan.attributes, plan.constraints)
        let (rows, perStatement, wantsIDs) = (request.rows, plan.rowsPerStatement, plan.wantsIDs)
        let columns = plan.columns.joined(separator: ", ")
        return try write { session in
            let locked = try session.run("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $1 FOR UPDATE", [.integer(Int64(root.layout!.entityNumber))])
            guard let maxKey = locked.rows.first.flatMap({ $0.first }).flatMap(PostgreSQLValues.integer), maxKey >= 0, maxKey < Int64.max / 2 else {
                throw CoreDataError.make(NSPersistentStoreSaveError, "The PostgreSQL store can't number new \(entity.name ?? "objects"): its Z_PRIMARYKEY has no usable row for them.")
            }
            var nextKey = maxKey + 1
            var outcome = StoreBatchOutcome()
            var updated = Set<Int64>()
            var pending: [SlotRow] = []
            func flush() throws {
                guard !pending.isEmpty else { return }
                var binds: [PostgreSQLValue] = []
                var tuples: [String] = []
                for slots in pending {
                    binds.append(.integer(nextKey))
                    nextKey += 1
                    var parameters = ["$\(binds.count)", String(entity.layout!.entityNumber), "1"]
                    for write in plan.writes {
                        guard case .attribute(let attribute) = write.kind else { continue }
                        binds.append(PostgreSQLValues.value(write.value(of: slots[write.slot]), attribute: attribute))
                        parameters.append(PostgreSQLValues.parameter(binds.count, for: attribute))
                    }
                    tuples.append("(" + parameters.joined(separator: ", ") + ")")
                }
                let conflict = constraints.isEmpty ? "" : " ON CONFLICT DO NOTHING"
                let inserted = try session.run("INSERT INTO \(table) (\(columns)) VALUES \(tuples.joined(separator: ", "))\(conflict)", binds).affectedRows
                if inserted == pending.count {
                    outcome.count += inserted
                    if wantsIDs {
                        outcome.objectIDs += (nextKey - Int64(inserted)..<nextKey).map { NSManagedObjectID(entity: entity, store: self, primaryKey: $0) }
                    }
                } else {
                    // One row, refused by a unique index: its key goes back unused.
                    nextKey -= 1
                    try resolve(pending[0], session: session, into: &outcome, updated: &updated)
                }
                pending.removeAll(keepingCapacity: true)
            }
            func resolve(_ slots: SlotRow, session: any PostgreSQLSession, into outcome: inout StoreBatchOutcome, updated: inout Set<Int64>) throws {
                let (constraint, existing) = try existingRow(table, entity, constraints, slots, session)
                guard try BatchInsertConflict(policy: request.policy).overwrites(entity, constraint, values: rows.snapshot(slots)) else { return }
                var binds: [PostgreSQLValue] = []
                var assignments: [String] = []
                for write in plan.writes {
                    guard case .attribute(let attribute) = write.kind else { continue }
                    binds.append(PostgreSQLValues.value(write.value(of: slots[write.slot]), attribute: attribute))
                    assignments.append("\(write.column) = \(PostgreSQLValues.parameter(binds.count, for: attribute))")
                }
                binds.append(.integer(existing))
                _ = try session.run("UPDATE \(table) SET \(assignments.joined(separator: ", ")), Z_OPT = Z_OPT + 1 WHERE Z_PK = $\(binds.count)", binds)
                if existing <= maxKey, updated.insert(existing).inserted {
                    outcome.count += 1
                    if wantsIDs { outcome.objectIDs.append(NSManagedObjectID(entity: entity, store: self, primaryKey: existing)) }
                }
            }
            var slots = rows.defaults
            while try rows.next(into: &slots) {
                pending.append(slots)
                if pending.count == perStatement { try flush() }
            }
            try flush()
            if nextKey != maxKey + 1 {
                _ = try session.run("UPDATE Z_PRIMARYKEY SET Z_MAX = $1 WHERE Z_ENT = $2", [.integer(nextKey - 1), .integer(Int64(root.layout!.entityNumber))])
            }
            if var history = batchHistory(request.writer) {
                // Every inserted row took the next key; rows a merge policy overwrote are updates.
                for key in maxKey + 1..<nextKey {
                    history.changes.append(HistoryChangeDraft(entity: entity, primaryKey: key, changeType: .insert))
                }
                for key in updated.sorted() {
                    history.changes.append(HistoryChangeDraft(entity: entity, primaryKey: key, changeType: .update, changedSlots: attributes.map(\.slot)))
                }
                try writeBatchHistory(history, session)
            }
            return outcome
        }
    }

    /// The constraint a row broke and the key of the row already holding its values.
    private func existingRow(
        _ table: String, _ entity: NSEntityDescription, _ constraints: [[NSPropertyDescription]], _ slots: SlotRow, _ session: any PostgreSQLSession
    ) throws -> ([NSPropertyDescription], Int64) {
        for constraint in constraints {
            // `=`: a unique index lets NULLs repeat, so NULL matches nothing here either.
            var binds: [PostgreSQLValue] = []
            var conditions: [String] = []
            for property in constraint {
                let attribute = property as? NSAttributeDescription
                binds.append(PostgreSQLValues.value(slots[property.slot], attribute: attribute))
                conditions.append("\(property.columnName!) = \(PostgreSQLValues.parameter(binds.count, for: attribute))")
            }
            let numbers = (constraint.first?.entity ?? entity).layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
            let sql = "SELECT Z_PK FROM \(table) WHERE \(conditions.joined(separator: " AND ")) AND Z_ENT IN (\(numbers)) LIMIT 1"
            if let key = try session.run(sql, binds).rows.first.flatMap({ $0.first }).flatMap(PostgreSQLValues.integer) { return (constraint, key) }
        }
        throw CoreDataError.make(NSPersistentStoreSaveError, "A uniqueness constraint of \(entity.name ?? "?") refused a row, and no row holds its values.")
    }

    // MARK: History

    /// A history to fill for a batch request `writer` runs, when the store records history.
    private func batchHistory(_ writer: HistoryAuthor) -> HistoryTransactionDraft? {
        historyTracked ? HistoryTransactionDraft(author: writer.author, contextName: writer.contextName) : nil
    }

    /// Adds the rows `(Z_PK, Z_ENT)` a batch request wrote to its history.
    private func record(_ rows: [[PostgreSQLValue]], _ type: NSPersistentHistoryChangeType, slots: [Int]? = nil, into history: inout HistoryTransactionDraft?) {
        guard history != nil else { return }
        for row in rows {
            guard row.count >= 2, let key = PostgreSQLValues.integer(row[0]), let number = PostgreSQLValues.integer(row[1]),
                let entity = entity(number: Int32(truncatingIfNeeded: number))
            else { continue }
            history!.changes.append(HistoryChangeDraft(entity: entity, primaryKey: key, changeType: type, changedSlots: slots))
        }
    }

    /// Adds the rows a batch delete removed to its history, with the tombstone of each: the
    /// values of its entity's preserved attributes, read from the columns `DELETE … RETURNING`
    /// gave back (`columns`, from `deletedColumns`).
    private func record(
        _ rows: [[PostgreSQLValue]], _ type: NSPersistentHistoryChangeType, into history: inout HistoryTransactionDraft?,
        tombstones: inout [Int: [PostgreSQLValue]], columns: [String]
    ) {
        guard history != nil else { return }
        let index = Dictionary(columns.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        for row in rows {
            guard row.count == columns.count, let number = PostgreSQLValues.integer(row[1]),
                let entity = entity(number: Int32(truncatingIfNeeded: number))
            else { continue }
            let preserved = HistoryTombstones.columns(of: entity).compactMap { index[$0.column] }
            if !preserved.isEmpty { tombstones[history!.changes.count] = preserved.map { PostgreSQLHistory.tombstoneText(row[$0]) } }
            record([row], type, into: &history)
        }
    }

    /// What a batch delete from `root`'s table returns of each row: its key and entity number,
    /// and, for the history's tombstones, the column of every preserved attribute of the hierarchy.
    private func deletedColumns(of root: NSEntityDescription, tombstones: Bool) -> [String] {
        var columns = ["Z_PK", "Z_ENT"]
        guard tombstones else { return columns }
        for entity in [root] + ModelLayoutBuilder.descendants(of: root) {
            for preserved in HistoryTombstones.columns(of: entity) where !columns.contains(preserved.column) {
                columns.append(preserved.column)
            }
        }
        return columns
    }

    private func writeBatchHistory(_ history: HistoryTransactionDraft?, tombstones: [Int: [PostgreSQLValue]] = [:], _ session: any PostgreSQLSession) throws {
        guard let history else { return }
        try PostgreSQLHistory.write(history, tombstones: tombstones, names: historyNames, on: session)
    }

    // MARK: Results

    /// Whether a batch request must see the rows it changed: for the IDs it returns, or for the
    /// history it records. A count alone comes with the statement, without sending every key back.
    private func needsChangedRows(_ kind: StoreBatchResultKind) -> Bool {
        kind == .objectIDs || historyTracked
    }

    /// What a batch request reports from rows of `(Z_PK, Z_ENT)`.
    private func outcome(_ rows: [[PostgreSQLValue]], _ kind: StoreBatchResultKind) -> StoreBatchOutcome {
        var outcome = StoreBatchOutcome(count: rows.count)
        guard kind == .objectIDs else { return outcome }
        outcome.objectIDs = rows.compactMap { row in
            guard row.count >= 2, let key = PostgreSQLValues.integer(row[0]), let number = PostgreSQLValues.integer(row[1]),
                let entity = entity(number: Int32(truncatingIfNeeded: number))
            else { return nil }
            return NSManagedObjectID(entity: entity, store: self, primaryKey: key)
        }
        return outcome
    }
}
