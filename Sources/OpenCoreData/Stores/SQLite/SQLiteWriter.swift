import GRDB
import GRDBSQLite

/// Writes one save into a SQLite transaction with prepared statements bound through SQLite's C API.
///
/// A writer lives for one save. Each entity's INSERT, UPDATE and DELETE is built and prepared once,
/// on its first row, and then only bound and stepped: no SQL text is built or hashed per row.
///
/// New rows of an entity without uniqueness constraints wait, per entity, and go
/// `rowsPerInsert` to one multi-row INSERT, as in `NSBatchInsertRequest`: running a statement has
/// a fixed cost that a one-row INSERT pays per object. Inserts of other entities may pass them
/// (Core Data's tables have no foreign-key constraints); every other write, read and `finish()`
/// sends all waiting rows first.
final class SQLiteWriter: StoreWriter {
    // The state below is marked `@exclusivity(unchecked)`: a writer lives on the one thread that
    // runs its save, and the runtime's dynamic exclusivity checks on these fields cost about 470
    // instructions a saved row (docs/performance.md, eleventh round).
    private let store: SQLiteStore
    private let db: Database
    /// The database's connection, read once: GRDB's property is checked for exclusive access on
    /// every read, which an UPDATE or DELETE paid per row for its change count.
    private let connection: SQLiteConnection?
    @exclusivity(unchecked) private var maxKeys: [Int32: Int64] = [:]
    @exclusivity(unchecked) private var plans: [ObjectIdentifier: EntityPlan] = [:]
    /// The plan of the entity of the previous row: saves write long runs of one entity.
    @exclusivity(unchecked) private var lastPlan: EntityPlan?
    /// The plans with new rows not written yet.
    @exclusivity(unchecked) private var waitingPlans: [EntityPlan] = []

    /// One entity's columns and statements for the rest of the save. GRDB's `Statement`s are held,
    /// not only their handles, so that they stay valid whatever GRDB's statement cache does.
    private final class EntityPlan {
        unowned(unsafe) let entity: NSEntityDescription
        let table: String
        let storeNumber: Int64
        let columns: [StoreColumnWrite]
        /// The columns of attributes that allow external storage, whose files a rewritten or
        /// deleted row lets go of.
        let externalColumns: [String]
        let joinTables: [JoinTable]
        @exclusivity(unchecked) var insert: Statement?
        /// The INSERT of `rowsPerInsert` rows, and a text buffer per parameter for it: its
        /// strings are bound without SQLite copying each one.
        @exclusivity(unchecked) var insertMany: Statement?
        @exclusivity(unchecked) var manyText: SQLiteTextBuffers?
        /// Rows a multi-row INSERT carries; 1 for an entity with uniqueness constraints, whose
        /// rows go one at a time so that a broken constraint names its object.
        let rowsPerInsert: Int
        /// New rows waiting for the multi-row INSERT, with their keys.
        @exclusivity(unchecked) var waitingKeys: [Int64] = []
        @exclusivity(unchecked) var waitingRows: [RowValues] = []
        @exclusivity(unchecked) var update: Statement?
        @exclusivity(unchecked) var delete: Statement?
        @exclusivity(unchecked) var clearJoins: [Statement] = []

        init(entity: NSEntityDescription, storeNumber: Int64, columns: [StoreColumnWrite], constrained: Bool) {
            self.entity = entity
            self.table = entity.tableName
            self.storeNumber = storeNumber
            self.columns = columns
            self.externalColumns = columns.compactMap { write in
                guard case .attribute(let attribute) = write.kind, attribute.allowsExternalBinaryDataStorage else { return nil }
                return write.column
            }
            self.joinTables = entity.relationshipList.compactMap(\.joinTable)
            // 999 is the fewest parameters a statement may have in any SQLite build.
            self.rowsPerInsert = constrained ? 1 : max(1, min(SQLiteStore.rowsPerStatement, 999 / (columns.count + 1)))
        }

        /// `INSERT` of `rows` rows: the key and the columns as parameters, entity and version as
        /// constants.
        func insertSQL(rows: Int) -> String {
            let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.column)
            let row = "(?, \(storeNumber), 1" + String(repeating: ", ?", count: columns.count) + ")"
            return "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
        }
    }

    /// The save's persistent history, when the store records it.
    @exclusivity(unchecked) private var history: BatchHistory?
    /// The external data files the save writes and lets go of, when the model has attributes
    /// that allow external storage.
    var external: SQLiteExternalFiles?
    /// Told the number of the history transaction the save wrote.
    @exclusivity(unchecked) private var historyRecorded: ((Int64) -> Void)?

    init(store: SQLiteStore, db: Database) {
        self.store = store
        self.db = db
        connection = db.sqliteConnection
        if store.tracksPersistentHistory { history = BatchHistory() }
    }

    func describeTransaction(author: String?, contextName: String?, recorded: @escaping (Int64) -> Void) {
        history?.draft.author = author
        history?.draft.contextName = contextName
        historyRecorded = recorded
    }

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        let number = store.storeNumber(entity.layout!.root)
        let current: Int64
        if let cached = maxKeys[number] {
            current = cached
        } else {
            current = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [number]) ?? 0
        }
        // A damaged or hostile store may hold a Z_MAX no key can follow: refuse the save rather
        // than trap on the overflow.
        let (last, overflow) = current.addingReportingOverflow(Int64(count))
        guard !overflow, current >= 0 else {
            throw SQLiteWriter.keysExhausted(entity, max: current, path: store.url?.path ?? "")
        }
        maxKeys[number] = last
        return current + 1
    }

    /// The error of a hierarchy whose `Z_MAX` leaves no room for new primary keys.
    static func keysExhausted(_ entity: NSEntityDescription, max: Int64, path: String) -> NSError {
        CoreDataError.make(
            NSPersistentStoreSaveError,
            "The store at \(path) can't number new \(entity.name ?? "objects"): its Z_PRIMARYKEY says \(max) are taken.",
            userInfo: [NSFilePathErrorKey: path])
    }

    func finish() throws {
        try writeWaitingRows()
        if let history {
            if let number = try SQLiteHistoryWriter(store: store, db: db).write(history.draft, tombstones: history.tombstones) {
                historyRecorded?(number)
            }
            self.history = BatchHistory(draft: HistoryTransactionDraft(author: history.draft.author, contextName: history.draft.contextName))
        }
        for (number, max) in maxKeys {
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [max, number])
        }
        maxKeys.removeAll()
    }

    func insert(entity: NSEntityDescription, primaryKey: Int64, values: RowValues) throws {
        let plan = self.plan(for: entity)
        history?.add(entity, primaryKey: primaryKey, .insert)
        guard plan.rowsPerInsert > 1 else { return try insertOne(plan, primaryKey: primaryKey, values: values) }
        if plan.waitingRows.isEmpty { waitingPlans.append(plan) }
        plan.waitingKeys.append(primaryKey)
        plan.waitingRows.append(values)
        if plan.waitingRows.count == plan.rowsPerInsert { try writeWaitingRows(of: plan) }
    }

    private func insertOne(_ plan: EntityPlan, primaryKey: Int64, values: RowValues) throws {
        let statement = try prepared(&plan.insert) { plan.insertSQL(rows: 1) }
        sqlite3_bind_int64(statement, 1, primaryKey)
        bind(plan.columns, values, statement, from: 2)
        try step(statement, entity: plan.entity, primaryKey: primaryKey)
    }

    /// Writes every entity's waiting rows: before anything else touches the database.
    private func writeWaitingRows() throws {
        guard !waitingPlans.isEmpty else { return }
        for plan in waitingPlans { try writeWaitingRows(of: plan) }
        waitingPlans.removeAll(keepingCapacity: true)
    }

    /// Writes `plan`'s waiting rows: in one INSERT when they fill it, else one by one.
    private func writeWaitingRows(of plan: EntityPlan) throws {
        defer {
            plan.waitingKeys.removeAll(keepingCapacity: true)
            plan.waitingRows.removeAll(keepingCapacity: true)
        }
        guard plan.waitingRows.count == plan.rowsPerInsert else {
            for (key, values) in zip(plan.waitingKeys, plan.waitingRows) { try insertOne(plan, primaryKey: key, values: values) }
            return
        }
        let statement = try prepared(&plan.insertMany) { plan.insertSQL(rows: plan.rowsPerInsert) }
        let perRow = Int32(plan.columns.count + 1)
        let text = plan.manyText ?? SQLiteTextBuffers(parameters: Int(perRow) * plan.rowsPerInsert)
        plan.manyText = text
        for (row, values) in plan.waitingRows.enumerated() {
            let first = 1 + Int32(row) * perRow
            sqlite3_bind_int64(statement, first, plan.waitingKeys[row])
            bind(plan.columns, values, statement, from: first + 1, text: text)
        }
        try step(statement, entity: plan.entity, primaryKey: plan.waitingKeys[0])
    }

    func update(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64, values: RowValues) throws -> Bool {
        try writeWaitingRows()
        let plan = self.plan(for: entity)
        try noteExternalFiles(of: plan, primaryKey: primaryKey)
        let statement = try prepared(&plan.update) {
            let assignments = (["Z_OPT = ?"] + plan.columns.map { "\($0.column) = ?" }).joined(separator: ", ")
            return "UPDATE \(plan.table) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?"
        }
        sqlite3_bind_int64(statement, 1, expectedVersion + 1)
        bind(plan.columns, values, statement, from: 2)
        sqlite3_bind_int64(statement, Int32(plan.columns.count + 2), primaryKey)
        sqlite3_bind_int64(statement, Int32(plan.columns.count + 3), expectedVersion)
        try step(statement, entity: entity, primaryKey: primaryKey)
        let updated = sqlite3_changes(connection) == 1
        if updated { history?.add(entity, primaryKey: primaryKey, .update, changedSlots: values.changedSlots) }
        return updated
    }

    func delete(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64) throws -> Bool {
        try writeWaitingRows()
        let plan = self.plan(for: entity)
        let preserved = history != nil ? try preservedValues(of: entity, table: plan.table, primaryKey: primaryKey) : nil
        try noteExternalFiles(of: plan, primaryKey: primaryKey)
        let statement = try prepared(&plan.delete) { "DELETE FROM \(plan.table) WHERE Z_PK = ? AND Z_OPT = ?" }
        sqlite3_bind_int64(statement, 1, primaryKey)
        sqlite3_bind_int64(statement, 2, expectedVersion)
        try step(statement, entity: entity)
        let deleted = sqlite3_changes(connection) == 1
        if plan.clearJoins.count != plan.joinTables.count {
            plan.clearJoins = try plan.joinTables.map { join in
                try db.cachedStatement(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?")
            }
        }
        for clear in plan.clearJoins {
            let handle = clear.sqliteStatement
            sqlite3_bind_int64(handle, 1, primaryKey)
            try step(handle, entity: entity)
        }
        if deleted, history != nil {
            if let preserved { history!.tombstones[history!.draft.changes.count] = preserved }
            history!.add(entity, primaryKey: primaryKey, .delete)
        }
        return deleted
    }

    /// The values of `entity`'s preserved attributes in the row about to be deleted, as its
    /// columns hold them; nil when the entity preserves none.
    private func preservedValues(of entity: NSEntityDescription, table: String, primaryKey: Int64) throws -> [DatabaseValue]? {
        let preserved = HistoryTombstones.columns(of: entity)
        guard !preserved.isEmpty else { return nil }
        let columns = preserved.map(\.column).joined(separator: ", ")
        // Cached: a save deletes objects of one entity in runs, and the text is the same for them.
        let statement = try db.cachedStatement(sql: "SELECT \(columns) FROM \(table) WHERE Z_PK = ?")
        guard let row = try Row.fetchOne(statement, arguments: [primaryKey]) else { return nil }
        return (0..<row.count).map { row[$0] as DatabaseValue }
    }

    func currentRow(entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        try writeWaitingRows()
        return try store.row(of: entity, primaryKey: primaryKey, in: db)
    }

    func derivedValues() throws -> [DerivedValue] {
        try writeWaitingRows()
        return store.derivedValues(from: store.derivedReports.end())
    }

    func rowMatching(entity: NSEntityDescription, slots: [Int], values: RowValues, excluding: Int64) throws -> Int64? {
        try writeWaitingRows()
        let properties = slots.map { entity.properties[$0] }
        let conditions = properties.map { "\($0.columnName!) IS ?" }.joined(separator: " AND ")
        let statement = try prepare("SELECT Z_PK FROM \(entity.tableName) WHERE \(conditions) AND Z_PK != ? LIMIT 1")
        for (index, property) in properties.enumerated() {
            SQLiteBind.bind(values.slots[property.slot], attribute: property as? NSAttributeDescription, to: statement, at: Int32(index + 1))
        }
        sqlite3_bind_int64(statement, Int32(properties.count + 1), excluding)
        defer { sqlite3_reset(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : nil
    }

    func setOrder(in relationship: NSRelationshipDescription, member: NSEntityDescription, primaryKey: Int64, position: Int64) throws {
        guard let column = relationship.orderColumn else { return }
        try execute("UPDATE \(member.tableName) SET \(column) = ? WHERE Z_PK = ?", position, primaryKey)
    }

    func insertPair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws {
        guard let table = relationship.pairTable else { return }
        try execute(
            "INSERT OR IGNORE INTO \(table.name) (\(table.sourceColumn), \(table.destinationColumn)) VALUES (?, ?)",
            source, destination)
    }

    func deletePair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws {
        guard let table = relationship.pairTable else { return }
        try execute(
            "DELETE FROM \(table.name) WHERE \(table.sourceColumn) = ? AND \(table.destinationColumn) = ?",
            source, destination)
    }

    func setPairOrder(of relationship: NSRelationshipDescription, source: Int64, destination: Int64, position: Int64) throws {
        guard let table = relationship.joinTable, let column = table.orderColumn else { return }
        try execute(
            "UPDATE \(table.name) SET \(column) = ? WHERE \(table.sourceColumn) = ? AND \(table.destinationColumn) = ?",
            position, source, destination)
    }

    /// Runs a statement that takes integer parameters (after the rows waiting to be inserted).
    private func execute(_ sql: String, _ values: Int64...) throws {
        try writeWaitingRows()
        let statement = try prepare(sql)
        for (index, value) in values.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), value) }
        try step(statement, entity: nil)
    }

    // MARK: Statements

    private func plan(for entity: NSEntityDescription) -> EntityPlan {
        if let lastPlan, lastPlan.entity === entity { return lastPlan }
        let plan: EntityPlan
        if let known = plans[ObjectIdentifier(entity)] {
            plan = known
        } else {
            plan = EntityPlan(
                entity: entity, storeNumber: Int64(store.storeNumber(entity)), columns: StoreColumnWrite.plan(for: entity),
                constrained: !entity.storedUniquenessConstraints.isEmpty)
            plans[ObjectIdentifier(entity)] = plan
        }
        lastPlan = plan
        return plan
    }

    /// The statement in `slot`, prepared from `sql()` on first use; reset and unbound then, and
    /// reset after every step by `step`, so later rows only bind and step.
    private func prepared(_ slot: inout Statement?, _ sql: () -> String) throws -> OpaquePointer {
        if let statement = slot { return statement.sqliteStatement }
        let statement = try db.cachedStatement(sql: sql())
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_clear_bindings(statement.sqliteStatement)
        slot = statement
        return statement.sqliteStatement
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        return statement
    }

    private func step(_ statement: OpaquePointer, entity: NSEntityDescription?, primaryKey: Int64 = 0) throws {
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            let message = String(cString: sqlite3_errmsg(connection))
            let extended = sqlite3_extended_errcode(connection)
            sqlite3_reset(statement)
            if extended == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ || extended == 1555 /* _PRIMARYKEY */, let entity {
                throw UniquenessViolation(sqliteMessage: message, entity: entity, primaryKey: primaryKey)
            }
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: message)
        }
        sqlite3_reset(statement)
    }

    /// Tells the save's external files which files the row `primaryKey` names now, before it is
    /// rewritten or deleted.
    private func noteExternalFiles(of plan: EntityPlan, primaryKey: Int64) throws {
        guard let external, !plan.externalColumns.isEmpty else { return }
        let sql = "SELECT \(plan.externalColumns.joined(separator: ", ")) FROM \(plan.table) WHERE Z_PK = ?"
        guard let row = try Row.fetchOne(try db.cachedStatement(sql: sql), arguments: [primaryKey]) else { return }
        external.replacing((0..<row.count).compactMap { (row[$0] as Data?).flatMap(SQLiteExternalData.fileName(in:)) })
    }

    /// Binds a row's columns from parameter `first` on; strings through `text` when given.
    private func bind(
        _ plan: [StoreColumnWrite], _ values: RowValues, _ statement: OpaquePointer, from first: Int32, text: SQLiteTextBuffers? = nil
    ) {
        // Borrowed: a `for in` copied each write out, retaining its attribute, column name and
        // path for every value of every row a save writes.
        plan.forEachBorrowed { offset, write in bind(write, at: first + Int32(offset), values, statement, text: text) }
    }

    /// Binds one column of a row at parameter `index`.
    @inline(__always)
    private func bind(_ write: borrowing StoreColumnWrite, at index: Int32, _ values: RowValues, _ statement: OpaquePointer, text: SQLiteTextBuffers?) {
        let value = write.value(of: values.slots[write.slot])
        switch write.kind {
        case .attribute(let attribute):
            if let text, case .string(let string) = value {
                text.bindText(string, to: statement, at: index)
            } else if case .data(let data) = value, data.count > SQLiteExternalData.threshold, attribute.allowsExternalBinaryDataStorage,
                let name = external?.store(data)
            {
                let reference = SQLiteExternalData.reference(to: name)
                _ = reference.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), SQLiteBind.transient) }
            } else {
                SQLiteBind.bind(value, attribute: attribute, to: statement, at: index)
            }
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

extension UniquenessViolation {
    /// SQLite's report, `UNIQUE constraint failed: ZCAR.ZPLATE, ZCAR.ZMAKER`, in the model's
    /// terms: the constraint of `entity` or an ancestor whose columns are those named.
    init(sqliteMessage message: String, entity: NSEntityDescription, primaryKey: Int64) {
        let named = message.range(of: "failed: ").map { message[$0.upperBound...] } ?? ""
        let columns = Set(named.split(separator: ",").map { $0.split(separator: ".").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" })
        var constraint: [String]?
        var current: NSEntityDescription? = entity
        while let e = current, constraint == nil {
            constraint = e.uniquenessConstraints.map(VersionHasher.constraintNames).first { names in
                Set(names.compactMap { e.propertiesByName[$0]?.columnName }) == columns
            }
            current = e.superentity
        }
        self.init(entity: entity, primaryKey: primaryKey, constraint: constraint, detail: message)
    }
}
