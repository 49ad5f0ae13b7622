import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Inserts the request's rows with prepared `INSERT`s in one transaction. Primary keys
    /// continue `Z_PRIMARYKEY.Z_MAX`, read once before the first row and written once after the
    /// last. Without uniqueness constraints, rows go `rowsPerStatement` to a statement (SQLite's
    /// cost of running a statement, a fifth of a one-row INSERT, is paid once for them); with
    /// constraints, one at a time, and a row that breaks one goes as the merge policy says (see
    /// `NSBatchInsertRequest`); a key is used only by a row that was inserted.
    func runBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        let entity = request.entity
        let rows = request.rows
        let root = entity.layout!.root
        let table = root.layout!.tableName
        let attributes = rows.attributes
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + attributes.map { $0.columnName! }
        let values = "(?, \(storeNumber(entity)), 1\(String(repeating: ", ?", count: attributes.count)))"
        let insertSQL = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        let constraints = uniquenessConstraints(of: entity)
        let parametersPerRow = Int32(attributes.count + 1)
        // 999 is the fewest parameters a statement may have in any SQLite build.
        let perStatement = constraints.isEmpty ? max(1, min(Self.rowsPerStatement, 999 / Int(parametersPerRow))) : 1
        let wantsIDs = request.result == .objectIDs
        let rootNumber = storeNumber(root)

        return try batchWrite("NSBatchInsertRequest") { db in
            // The Statements are kept, not only their handles, so that they are not finalized under us.
            let oneStatement = try db.makeStatement(sql: insertSQL + values)
            let manyStatement = perStatement > 1
                ? try db.makeStatement(sql: insertSQL + Array(repeating: values, count: perStatement).joined(separator: ", ")) : nil
            let firstKey = try (Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [rootNumber]) ?? 0) + 1
            var nextKey = firstKey
            var outcome = StoreBatchOutcome()
            /// Existing rows a merge policy updated, counted once each.
            var updated = Set<Int64>()
            let text = SQLiteTextBuffers(parameters: Int(parametersPerRow) * perStatement)

            /// Binds `slots` as the row of key `key` whose parameters start at `first`.
            func bind(_ slots: SlotRow, key: Int64, to statement: OpaquePointer, from first: Int32) {
                sqlite3_bind_int64(statement, first, key)
                for (offset, attribute) in attributes.enumerated() {
                    let value = slots[attribute.slot]
                    let index = first + 1 + Int32(offset)
                    if case .string(let string) = value {
                        text.bindText(string, to: statement, at: index)
                    } else {
                        SQLiteBind.bind(value, attribute: attribute, to: statement, at: index)
                    }
                }
            }

            func step(_ statement: OpaquePointer) -> (code: Int32, extended: Int32) {
                let code = sqlite3_step(statement)
                let extended = sqlite3_extended_errcode(db.sqliteConnection)
                sqlite3_reset(statement)
                return (code, extended)
            }

            func inserted(_ count: Int) {
                if wantsIDs {
                    for key in nextKey..<(nextKey + Int64(count)) {
                        outcome.objectIDs.append(NSManagedObjectID(entity: entity, store: self, primaryKey: key))
                    }
                }
                outcome.count += count
                nextKey += Int64(count)
            }

            func insertOne(_ slots: SlotRow) throws {
                let insert = oneStatement.sqliteStatement
                bind(slots, key: nextKey, to: insert, from: 1)
                let (code, extended) = step(insert)
                if code == SQLITE_DONE { return inserted(1) }
                guard extended == 2067 /* SQLITE_CONSTRAINT_UNIQUE */, !constraints.isEmpty else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: extended), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                        sql: oneStatement.sql)
                }
                let (constraint, existing) = try existingRow(table, constraints, slots, db)
                switch request.policy {
                case .errorMergePolicyType:
                    throw constraintConflict(entity, constraint, values: rows.snapshot(slots))
                case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType:
                    return
                case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType:
                    try overwrite(table, existing, attributes, slots, db)
                    if existing < firstKey, updated.insert(existing).inserted {
                        if wantsIDs { outcome.objectIDs.append(NSManagedObjectID(entity: entity, store: self, primaryKey: existing)) }
                        outcome.count += 1
                    }
                }
            }

            var pending = Array(repeating: rows.defaults, count: perStatement)
            var filled = 0
            while try rows.next(into: &pending[filled]) {
                filled += 1
                guard filled == perStatement else { continue }
                filled = 0
                guard let many = manyStatement?.sqliteStatement else {
                    try insertOne(pending[0])
                    continue
                }
                for (row, slots) in pending.enumerated() {
                    bind(slots, key: nextKey + Int64(row), to: many, from: 1 + Int32(row) * parametersPerRow)
                }
                let (code, extended) = step(many)
                guard code == SQLITE_DONE else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: extended), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                        sql: manyStatement!.sql)
                }
                inserted(perStatement)
            }
            for slots in pending[..<filled] { try insertOne(slots) }
            if nextKey != firstKey {
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [nextKey - 1, rootNumber])
            }
            return outcome
        }
    }

    /// Rows a multi-row INSERT carries: past a few dozen, the statement's fixed cost no longer shows.
    static let rowsPerStatement = 32

    /// The uniqueness constraints of `entity` and its superentities, as their attributes.
    func uniquenessConstraints(of entity: NSEntityDescription) -> [[NSPropertyDescription]] {
        var result: [[NSPropertyDescription]] = []
        var current: NSEntityDescription? = entity
        while let e = current {
            for constraint in e.uniquenessConstraints {
                let properties = VersionHasher.constraintNames(constraint).compactMap { e.propertiesByName[$0] }
                if !properties.isEmpty, properties.allSatisfy({ $0.columnName != nil }) { result.append(properties) }
            }
            current = e.superentity
        }
        return result
    }

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
        _ table: String, _ key: Int64, _ attributes: [NSAttributeDescription], _ slots: SlotRow, _ db: Database
    ) throws {
        let assignments = attributes.map { "\($0.columnName!) = ?" } + ["Z_OPT = Z_OPT + 1"]
        let sql = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?"
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        for (offset, attribute) in attributes.enumerated() {
            SQLiteBind.bind(slots[attribute.slot], attribute: attribute, to: statement, at: Int32(offset + 1))
        }
        sqlite3_bind_int64(statement, Int32(attributes.count + 1), key)
        let code = sqlite3_step(statement)
        let extended = sqlite3_extended_errcode(db.sqliteConnection)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
        }
    }

    /// Core Data's error for a batch insert refused by `NSErrorMergePolicy`.
    private func constraintConflict(_ entity: NSEntityDescription, _ constraint: [NSPropertyDescription], values: [String: Any]) -> NSError {
        let names = constraint.map(\.name)
        let conflict = NSConstraintConflict(
            constraint: names, database: nil, databaseSnapshot: nil, conflicting: [], conflictingSnapshots: [values])
        return CoreDataError.make(
            NSManagedObjectConstraintMergeError,
            "The NSBatchInsertRequest broke the uniqueness constraint (\(names.joined(separator: ", "))) of entity \(entity.name ?? "?"); set the context's mergePolicy to update or keep the existing rows instead.",
            userInfo: [NSPersistentStoreSaveConflictsErrorKey: [conflict]])
    }
}
