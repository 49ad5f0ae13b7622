import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Inserts the request's rows with prepared `INSERT`s in one transaction. Primary keys
    /// continue `Z_PRIMARYKEY.Z_MAX`, read once before the first row and written once after the
    /// last. Without uniqueness constraints, rows go `rowsPerStatement` to a statement (SQLite's
    /// cost of running a statement, a fifth of a one-row INSERT, is paid once for them); with
    /// constraints, one at a time, and a row that breaks one goes as the merge policy says (see
    /// `NSBatchInsertRequest`); a key is used only by a row that was inserted. Without
    /// constraints or transformable attributes, and on two cores, the rows are written on another
    /// thread while the caller makes the next ones (`insertPipelined`).
    func runBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        // 999 is the fewest parameters a statement may have in any SQLite build.
        let plan = BatchInsertPlan(request, maxRows: Self.rowsPerStatement, maxParameters: 999)
        let (entity, root, table, attributes, constraints) = (plan.entity, plan.root, plan.table, plan.attributes, plan.constraints)
        let (rows, perStatement, wantsIDs) = (request.rows, plan.rowsPerStatement, plan.wantsIDs)
        let values = "(?, \(storeNumber(entity)), 1\(String(repeating: ", ?", count: plan.writes.count)))"
        let insertSQL = "INSERT INTO \(table) (\(plan.columns.joined(separator: ", "))) VALUES "
        let rootNumber = storeNumber(root)

        return try batchWrite("NSBatchInsertRequest") { db in
            // The Statements are kept, not only their handles, so that they are not finalized under us.
            let oneStatement = try db.makeStatement(sql: insertSQL + values)
            let manyStatement = perStatement > 1
                ? try db.makeStatement(sql: insertSQL + Array(repeating: values, count: perStatement).joined(separator: ", ")) : nil
            let maxKey = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [rootNumber]) ?? 0
            // Keys are counted up one a row: a damaged store's Z_MAX near the top of Int64 is
            // refused here rather than trapped on later (no real store comes near half of it).
            guard maxKey >= 0, maxKey < Int64.max / 2 else { throw SQLiteWriter.keysExhausted(root, max: maxKey, path: url?.path ?? "") }
            let firstKey = maxKey + 1
            let writer = BatchInsertWriter(
                many: manyStatement, one: oneStatement, perStatement: perStatement, writes: plan.writes, firstKey: firstKey, db: db)
            var outcome = StoreBatchOutcome()
            var overwritten: [Int64] = []
            if constraints.isEmpty {
                if manyStatement != nil, SecondThread.helps, !plan.writes.contains(where: \.bindsTransformable) {
                    try insertPipelined(rows, writer: writer)
                } else {
                    var pending = Array(repeating: rows.defaults, count: perStatement)
                    var filled = 0
                    while try rows.next(into: &pending[filled]) {
                        filled += 1
                        guard filled == perStatement else { continue }
                        try writer.write(pending, count: filled)
                        filled = 0
                    }
                    try writer.write(pending, count: filled)
                }
                // Every row took the next key.
                outcome.count = Int(writer.nextKey - firstKey)
                if wantsIDs {
                    outcome.objectIDs = (firstKey..<writer.nextKey).map { NSManagedObjectID(entity: entity, store: self, primaryKey: $0) }
                }
            } else {
                overwritten = try insertResolvingConflicts(
                    request, writer: writer, table: table, constraints: constraints, firstKey: firstKey, db: db, into: &outcome)
            }
            if writer.nextKey != firstKey {
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [writer.nextKey - 1, rootNumber])
            }
            if var history = batchHistory(request.writer) {
                // Every inserted row took the next key; rows a merge policy overwrote are updates.
                for key in firstKey..<writer.nextKey { history.add(entity, primaryKey: key, .insert) }
                let slots = attributes.map(\.slot)
                for key in overwritten { history.add(entity, primaryKey: key, .update, changedSlots: slots) }
                try writeBatchHistory(history, db)
            }
            return outcome
        }
    }

    /// Inserts the rows one at a time, resolving each that breaks a uniqueness constraint by the
    /// request's merge policy: the error policy fails, the store-trump and rollback policies keep
    /// the existing row, the object-trump and overwrite policies write the new values over it.
    private func insertResolvingConflicts(
        _ request: StoreBatchInsert, writer: BatchInsertWriter, table: String, constraints: [[NSPropertyDescription]],
        firstKey: Int64, db: Database, into outcome: inout StoreBatchOutcome
    ) throws -> [Int64] {
        let rows = request.rows
        let entity = request.entity
        let writes = StoreColumnWrite.plan(for: rows.attributes)
        let wantsIDs = request.result == .objectIDs
        let insert = writer.one
        /// Existing rows a merge policy updated, counted once each.
        var updated = Set<Int64>()
        var slots = rows.defaults
        while try rows.next(into: &slots) {
            writer.bind(slots, key: writer.nextKey, to: insert.sqliteStatement, from: 1)
            let (code, extended) = writer.step(insert.sqliteStatement)
            if code == SQLITE_DONE {
                if wantsIDs { outcome.objectIDs.append(NSManagedObjectID(entity: entity, store: self, primaryKey: writer.nextKey)) }
                outcome.count += 1
                writer.skipKey()
                continue
            }
            guard extended == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ else { throw writer.failure(extended, insert) }
            let (constraint, existing) = try existingRow(table, constraints, slots, db)
            guard try BatchInsertConflict(policy: request.policy).overwrites(entity, constraint, values: rows.snapshot(slots)) else { continue }
            try overwrite(table, existing, writes, slots, db)
            if existing < firstKey, updated.insert(existing).inserted {
                if wantsIDs { outcome.objectIDs.append(NSManagedObjectID(entity: entity, store: self, primaryKey: existing)) }
                outcome.count += 1
            }
        }
        // The existing rows a merge policy overwrote, by key.
        return updated.sorted()
    }

    /// Rows a multi-row INSERT carries: past a few dozen, the statement's fixed cost no longer shows.
    static let rowsPerStatement = 32

    /// The constraint a row broke and the key of the row already holding its values.
    private func existingRow(
        _ table: String, _ constraints: [[NSPropertyDescription]], _ slots: SlotRow, _ db: Database
    ) throws -> ([NSPropertyDescription], Int64) {
        for constraint in constraints {
            // `=`, not `IS`: a unique index lets NULLs repeat, so NULL matches nothing here either.
            let conditions = constraint.map { "\($0.columnName!) = ?" }.joined(separator: " AND ")
            let statement = try db.cachedStatement(sql: "SELECT Z_PK FROM \(table) WHERE \(conditions) LIMIT 1").sqliteStatement
            sqlite3_reset(statement)
            for (offset, property) in constraint.enumerated() {
                SQLiteBind.bind(slots[property.slot], attribute: property as? NSAttributeDescription, to: statement, at: Int32(offset + 1))
            }
            defer { sqlite3_reset(statement) }
            if sqlite3_step(statement) == SQLITE_ROW { return (constraint, sqlite3_column_int64(statement, 0)) }
        }
        throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "a uniqueness constraint failed on \(table)")
    }

    /// Writes every attribute of the new row over the existing row `key`; its version rises.
    private func overwrite(
        _ table: String, _ key: Int64, _ writes: [StoreColumnWrite], _ slots: SlotRow, _ db: Database
    ) throws {
        let assignments = writes.map { "\($0.column) = ?" } + ["Z_OPT = Z_OPT + 1"]
        let sql = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?"
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        for (offset, write) in writes.enumerated() {
            guard case .attribute(let attribute) = write.kind else { continue }
            SQLiteBind.bind(write.value(of: slots[write.slot]), attribute: attribute, to: statement, at: Int32(offset + 1))
        }
        sqlite3_bind_int64(statement, Int32(writes.count + 1), key)
        let code = sqlite3_step(statement)
        let extended = sqlite3_extended_errcode(db.sqliteConnection)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
        }
    }
}
