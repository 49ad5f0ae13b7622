import GRDB
import GRDBSQLite

/// What the three batch requests share in the SQLite store: one write transaction, Core Data's
/// errors for SQLite's, and object IDs read from `RETURNING` rows.
extension SQLiteStore {
    /// Runs `body` in one transaction of the store's writer: if it throws, nothing it wrote stays.
    ///
    /// - Throws: `NSPersistentStoreSaveError` for a read-only store; `NSManagedObjectConstraintMergeError`
    ///   (133021) for a broken uniqueness constraint; `NSSQLiteError` (134180) for another SQLite error.
    func batchWrite<T>(_ kind: String, _ body: (Database) throws -> T) throws -> T {
        guard !isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store at \(url!.path) was opened read-only; it can't execute an \(kind).")
        }
        do {
            let result = try pool!.write(body)
            didWrite()
            return result
        } catch let error as DatabaseError {
            let code = error.extendedResultCode.rawValue
            if code == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ || code == 1555 /* _PRIMARYKEY */ {
                throw CoreDataError.make(
                    NSManagedObjectConstraintMergeError, "The \(kind) broke a uniqueness constraint: \(error.message ?? "").",
                    userInfo: [NSSQLiteErrorDomain: Int(code)])
            }
            throw SQLiteFileCheck.operationError(error, path: url!.path, timeout: Self.timeout(in: options))
        }
    }

    /// Steps `statement` to its end; with `ids`, reads each row's `Z_PK` (column 0) and, when
    /// `entityColumn`, its `Z_ENT` (column 1) into object IDs of `entity`'s hierarchy.
    func stepCollectingIDs(
        _ statement: Statement, db: Database, entity: NSEntityDescription, ids: Bool, entityColumn: Bool
    ) throws -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        var last: (storeNumber: Int32, entity: NSEntityDescription)?
        try stepRows(statement, db: db) { handle in
            guard ids else { return }
            var rowEntity = entity
            if entityColumn {
                let number = sqlite3_column_int(handle, 1)
                if last?.storeNumber != number {
                    last = (number, self.entity(number: modelNumber(number)) ?? entity)
                }
                rowEntity = last!.entity
            }
            result.append(NSManagedObjectID(entity: rowEntity, store: self, primaryKey: sqlite3_column_int64(handle, 0)))
        }
        return result
    }

    /// Steps `statement` to its end, giving `body` the statement's handle on each row; SQLite's
    /// error as GRDB's `DatabaseError`, which `batchWrite` turns into Core Data's.
    func stepRows(_ statement: Statement, db: Database, _ body: (OpaquePointer) throws -> Void) throws {
        let handle = statement.sqliteStatement
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
            }
            try body(handle)
        }
    }

    /// Whether rows of `entity`'s table may belong to other entities than `entity` when
    /// subentities are included, so that IDs need each row's `Z_ENT`.
    func rowsMayBeOfSubentities(_ entity: NSEntityDescription, includesSubentities: Bool) -> Bool {
        includesSubentities && !entity.subentities.isEmpty
    }
}
