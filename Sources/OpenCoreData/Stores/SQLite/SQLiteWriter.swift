import GRDB
import GRDBSQLite

/// Writes one save into a SQLite transaction with prepared statements bound through SQLite's C API
/// (one statement per entity and operation, reused for every row).
final class SQLiteWriter: StoreWriter {
    private let store: SQLiteStore
    private let db: Database
    private var maxKeys: [Int32: Int64] = [:]
    private var columnPlans: [ObjectIdentifier: [ColumnWrite]] = [:]

    /// Where a slot goes in a row.
    private struct ColumnWrite {
        enum Kind { case attribute(NSAttributeDescription), foreignKey, entityNumber }
        let slot: Int
        let column: String
        let kind: Kind
    }

    init(store: SQLiteStore, db: Database) {
        self.store = store
        self.db = db
    }

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        let number = store.storeNumber(entity.layout!.root)
        let current: Int64
        if let cached = maxKeys[number] {
            current = cached
        } else {
            current = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [number]) ?? 0
        }
        maxKeys[number] = current + Int64(count)
        return current + 1
    }

    func finish() throws {
        for (number, max) in maxKeys {
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [max, number])
        }
        maxKeys.removeAll()
    }

    func insert(entity: NSEntityDescription, primaryKey: Int64, values: RowValues) throws {
        let plan = columns(for: entity)
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.map(\.column)
        let sql = "INSERT INTO \(entity.layout!.tableName) (\(names.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        let statement = try prepare(sql)
        sqlite3_bind_int64(statement, 1, primaryKey)
        sqlite3_bind_int64(statement, 2, Int64(store.storeNumber(entity)))
        sqlite3_bind_int64(statement, 3, 1)
        bind(plan, values, statement, from: 4)
        try step(statement, entity: entity, primaryKey: primaryKey)
    }

    func update(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64, values: RowValues) throws -> Bool {
        let plan = columns(for: entity)
        let assignments = (["Z_OPT = ?"] + plan.map { "\($0.column) = ?" }).joined(separator: ", ")
        let sql = "UPDATE \(entity.layout!.tableName) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?"
        let statement = try prepare(sql)
        sqlite3_bind_int64(statement, 1, expectedVersion + 1)
        bind(plan, values, statement, from: 2)
        sqlite3_bind_int64(statement, Int32(plan.count + 2), primaryKey)
        sqlite3_bind_int64(statement, Int32(plan.count + 3), expectedVersion)
        try step(statement, entity: entity, primaryKey: primaryKey)
        return sqlite3_changes(db.sqliteConnection) == 1
    }

    func delete(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64) throws -> Bool {
        let statement = try prepare("DELETE FROM \(entity.layout!.tableName) WHERE Z_PK = ? AND Z_OPT = ?")
        sqlite3_bind_int64(statement, 1, primaryKey)
        sqlite3_bind_int64(statement, 2, expectedVersion)
        try step(statement, entity: entity)
        let deleted = sqlite3_changes(db.sqliteConnection) == 1
        for property in entity.properties {
            guard let join = (property as? NSRelationshipDescription)?.joinTable else { continue }
            let clear = try prepare("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?")
            sqlite3_bind_int64(clear, 1, primaryKey)
            try step(clear, entity: entity)
        }
        return deleted
    }

    func currentRow(entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        try store.row(of: entity, primaryKey: primaryKey, in: db)
    }

    func rowMatching(entity: NSEntityDescription, slots: [Int], values: RowValues, excluding: Int64) throws -> Int64? {
        let properties = slots.map { entity.properties[$0] }
        let conditions = properties.map { "\($0.columnName!) IS ?" }.joined(separator: " AND ")
        let statement = try prepare("SELECT Z_PK FROM \(entity.layout!.tableName) WHERE \(conditions) AND Z_PK != ? LIMIT 1")
        for (index, property) in properties.enumerated() {
            SQLiteBind.bind(values.slots[property.slot], attribute: property as? NSAttributeDescription, to: statement, at: Int32(index + 1))
        }
        sqlite3_bind_int64(statement, Int32(properties.count + 1), excluding)
        defer { sqlite3_reset(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : nil
    }

    func setOrder(entity: NSEntityDescription, column: String, primaryKey: Int64, position: Int64) throws {
        let statement = try prepare("UPDATE \(entity.layout!.tableName) SET \(column) = ? WHERE Z_PK = ?")
        sqlite3_bind_int64(statement, 1, position)
        sqlite3_bind_int64(statement, 2, primaryKey)
        try step(statement, entity: nil)
    }

    func insertJoin(_ table: JoinTable, source: Int64, destination: Int64) throws {
        let statement = try prepare(
            "INSERT OR IGNORE INTO \(table.name) (\(table.sourceColumn), \(table.destinationColumn)) VALUES (?, ?)")
        sqlite3_bind_int64(statement, 1, source)
        sqlite3_bind_int64(statement, 2, destination)
        try step(statement, entity: nil)
    }

    func deleteJoin(_ table: JoinTable, source: Int64, destination: Int64) throws {
        let statement = try prepare(
            "DELETE FROM \(table.name) WHERE \(table.sourceColumn) = ? AND \(table.destinationColumn) = ?")
        sqlite3_bind_int64(statement, 1, source)
        sqlite3_bind_int64(statement, 2, destination)
        try step(statement, entity: nil)
    }

    // MARK: Statements

    private func prepare(_ sql: String) throws -> OpaquePointer {
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        return statement
    }

    private func step(_ statement: OpaquePointer, entity: NSEntityDescription?, primaryKey: Int64 = 0) throws {
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            let extended = sqlite3_extended_errcode(db.sqliteConnection)
            sqlite3_reset(statement)
            if extended == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ || extended == 1555 /* _PRIMARYKEY */, let entity {
                throw UniquenessViolation(entity: entity, primaryKey: primaryKey, message: message)
            }
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: message)
        }
        sqlite3_reset(statement)
    }

    private func bind(_ plan: [ColumnWrite], _ values: RowValues, _ statement: OpaquePointer, from first: Int32) {
        for (offset, write) in plan.enumerated() {
            let index = first + Int32(offset)
            let value = values.slots[write.slot]
            switch write.kind {
            case .attribute(let attribute):
                SQLiteBind.bind(value, attribute: attribute, to: statement, at: index)
            case .foreignKey:
                if case .reference(let reference) = value {
                    sqlite3_bind_int64(statement, index, reference.primaryKey)
                } else {
                    sqlite3_bind_null(statement, index)
                }
            case .entityNumber:
                if case .reference(let reference) = value, let entity = store.entity(number: reference.entityNumber) {
                    sqlite3_bind_int64(statement, index, Int64(store.storeNumber(entity)))
                } else {
                    sqlite3_bind_null(statement, index)
                }
            }
        }
    }

    private func columns(for entity: NSEntityDescription) -> [ColumnWrite] {
        if let plan = columnPlans[ObjectIdentifier(entity)] { return plan }
        var plan: [ColumnWrite] = []
        for property in entity.properties where !property.isTransient {
            guard let column = property.columnName else { continue }
            if let attribute = property as? NSAttributeDescription {
                plan.append(ColumnWrite(slot: property.slot, column: column, kind: .attribute(attribute)))
            } else if let relationship = property as? NSRelationshipDescription {
                plan.append(ColumnWrite(slot: property.slot, column: column, kind: .foreignKey))
                if let entityColumn = relationship.entityColumnName {
                    plan.append(ColumnWrite(slot: property.slot, column: entityColumn, kind: .entityNumber))
                }
            }
        }
        columnPlans[ObjectIdentifier(entity)] = plan
        return plan
    }
}

/// A write broke a uniqueness constraint; the context turns it into `NSManagedObjectConstraintMergeError`.
struct UniquenessViolation: Error {
    let entity: NSEntityDescription
    /// The key of the row whose write failed.
    let primaryKey: Int64
    let message: String
}
