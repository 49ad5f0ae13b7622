import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Inserts the request's rows with one prepared `INSERT` in one transaction. Primary keys
    /// continue `Z_PRIMARYKEY.Z_MAX`, read once before the first row and written once after the
    /// last. A row that breaks a uniqueness constraint goes as the merge policy says (see
    /// `NSBatchInsertRequest`); a key is used only by a row that was inserted.
    func runBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        let entity = request.entity
        let rows = request.rows
        let root = entity.layout!.root
        let table = root.layout!.tableName
        let attributes = rows.attributes
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + attributes.map { $0.columnName! }
        let insertSQL = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (?, \(storeNumber(entity)), 1\(String(repeating: ", ?", count: attributes.count)))"
        let constraints = uniquenessConstraints(of: entity)
        let wantsIDs = request.result == .objectIDs
        let rootNumber = storeNumber(root)

        return try batchWrite("NSBatchInsertRequest") { db in
            // The Statement is kept, not only its handle, so that it is not finalized under us.
            let statement = try db.makeStatement(sql: insertSQL)
            let insert = statement.sqliteStatement
            let firstKey = try (Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [rootNumber]) ?? 0) + 1
            var nextKey = firstKey
            var outcome = StoreBatchOutcome()
            /// Existing rows a merge policy updated, counted once each.
            var updated = Set<Int64>()
            var slots = rows.defaults
            while try rows.next(into: &slots) {
                sqlite3_bind_int64(insert, 1, nextKey)
                for (offset, attribute) in attributes.enumerated() {
                    SQLiteBind.bind(slots[attribute.slot], attribute: attribute, to: insert, at: Int32(offset + 2))
                }
                let code = sqlite3_step(insert)
                let extended = sqlite3_extended_errcode(db.sqliteConnection)
                sqlite3_reset(insert)
                if code == SQLITE_DONE {
                    if wantsIDs { outcome.objectIDs.append(NSManagedObjectID(entity: entity, store: self, primaryKey: nextKey)) }
                    outcome.count += 1
                    nextKey += 1
                    continue
                }
                guard extended == 2067 /* SQLITE_CONSTRAINT_UNIQUE */, !constraints.isEmpty else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: extended), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: insertSQL)
                }
                let (constraint, existing) = try existingRow(table, constraints, slots, db)
                switch request.policy {
                case .errorMergePolicyType:
                    throw constraintConflict(entity, constraint, values: rows.snapshot(slots))
                case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType:
                    continue
                case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType:
                    try overwrite(table, existing, attributes, slots, db)
                    if existing < firstKey, updated.insert(existing).inserted {
                        if wantsIDs { outcome.objectIDs.append(NSManagedObjectID(entity: entity, store: self, primaryKey: existing)) }
                        outcome.count += 1
                    }
                }
            }
            withExtendedLifetime(statement) {}
            if nextKey != firstKey {
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [nextKey - 1, rootNumber])
            }
            return outcome
        }
    }

    /// The uniqueness constraints of `entity` and its superentities, as their attributes.
    private func uniquenessConstraints(of entity: NSEntityDescription) -> [[NSPropertyDescription]] {
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
        _ table: String, _ constraints: [[NSPropertyDescription]], _ slots: ContiguousArray<SlotValue>, _ db: Database
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
        _ table: String, _ key: Int64, _ attributes: [NSAttributeDescription], _ slots: ContiguousArray<SlotValue>, _ db: Database
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
