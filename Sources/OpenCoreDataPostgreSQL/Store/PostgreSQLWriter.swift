import OpenCoreData

/// The write half of a save on one session, inside the transaction `PostgreSQLStore.save` opened.
final class PostgreSQLWriter: StoreWriter {
    private let store: PostgreSQLStore
    private let session: any PostgreSQLSession
    /// Per entity: its columns and the text of its INSERT and UPDATE, made once per save, not per row.
    private var plans: [ObjectIdentifier: EntityWrite] = [:]
    /// The save's persistent history, when the store records it; preserved values of deleted
    /// rows by change index.
    private var history: HistoryTransactionDraft?
    private var tombstones: [Int: [PostgreSQLValue]] = [:]
    private var recorded: ((Int64) -> Void)?
    /// New rows of one entity not sent yet: they go as one multi-row INSERT, since a save of many
    /// objects would otherwise wait for the server once per row. Sent before any other statement
    /// of the save, so that the save's statements keep their order.
    private var pending: (entity: NSEntityDescription, binds: [PostgreSQLValue], rows: Int)?
    /// Per entity, the INSERT of a full group of rows, made when a save first fills one: a save of
    /// a few objects never builds that long text.
    private var groupInserts: [ObjectIdentifier: String] = [:]

    init(store: PostgreSQLStore, session: any PostgreSQLSession) {
        self.store = store
        self.session = session
        if store.historyTracked { history = HistoryTransactionDraft() }
    }

    func describeTransaction(author: String?, contextName: String?, recorded: @escaping (Int64) -> Void) {
        history?.author = author
        history?.contextName = contextName
        self.recorded = recorded
    }

    func derivedValues() throws -> [DerivedValue] {
        try sendPendingRows()
        return try store.derivedValues(on: session)
    }

    /// Writes the save's history, inside its transaction.
    func finish() throws {
        try sendPendingRows()
        guard let history, let number = try PostgreSQLHistory.write(history, tombstones: tombstones, names: store.historyNames, on: session) else { return }
        recorded?(number)
    }

    private func record(_ entity: NSEntityDescription, _ primaryKey: Int64, _ type: NSPersistentHistoryChangeType, _ slots: [Int]? = nil) {
        history?.changes.append(HistoryChangeDraft(entity: entity, primaryKey: primaryKey, changeType: type, changedSlots: slots))
    }

    /// One entity's columns and statements: `$1…$3` are the key, entity number and version of an
    /// INSERT (the new version of an UPDATE, whose key and expected version come last).
    private struct EntityWrite {
        let columns: [StoreColumnWrite]
        let insert: String
        let update: String
        /// Whether new rows may go several to an INSERT: not when a unique index may refuse one,
        /// since the error must name the object that broke it.
        let insertsInGroups: Bool
        /// Rows per multi-row INSERT: under the protocol's 65,535 parameters, and few enough that
        /// the server's parse stays small next to the rows' own cost.
        let rowsPerInsert: Int
        private let table: String
        private let names: String

        init(_ entity: NSEntityDescription) {
            let columns = StoreColumnWrite.plan(for: entity)
            self.columns = columns
            let table = entity.tableName
            func parameter(_ index: Int) -> String {
                if case .attribute(let attribute) = columns[index].kind { return PostgreSQLValues.parameter(index + 4, for: attribute) }
                return "$\(index + 4)"
            }
            let names = (["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.column)).joined(separator: ", ")
            let values = (["$1", "$2", "$3"] + columns.indices.map(parameter)).joined(separator: ", ")
            insert = "INSERT INTO \(table) (\(names)) VALUES (\(values))"
            self.table = table
            self.names = names
            insertsInGroups = entity.storedUniquenessConstraints.isEmpty
            rowsPerInsert = max(1, min(1_000, 65_535 / (columns.count + 3)))
            // The same numbering: $1 the new version, $2 the key, $3 the expected version.
            let assignments = (["Z_OPT = $1"] + columns.indices.map { "\(columns[$0].column) = \(parameter($0))" }).joined(separator: ", ")
            update = "UPDATE \(table) SET \(assignments) WHERE Z_PK = $2 AND Z_OPT = $3"
        }

        /// The INSERT of `rows` rows, numbered on from the first row's parameters.
        func insertText(rows: Int) -> String {
            let perRow = columns.count + 3
            var text = "INSERT INTO \(table) (\(names)) VALUES "
            text.reserveCapacity(text.utf8.count + rows * perRow * 8)
            for row in 0..<rows {
                let base = row * perRow
                text += row == 0 ? "(" : ", ("
                for index in 0..<perRow {
                    if index > 0 { text += ", " }
                    let number = base + index + 1
                    if index >= 3, case .attribute(let attribute) = columns[index - 3].kind {
                        text += PostgreSQLValues.parameter(number, for: attribute)
                    } else {
                        text += "$\(number)"
                    }
                }
                text += ")"
            }
            return text
        }

        /// The parameters after the first three: the row's column values.
        func values(_ values: RowValues) -> [PostgreSQLValue] {
            columns.map { write in
                let slot = write.value(of: values.slots[write.slot])
                switch write.kind {
                case .attribute(let attribute): return PostgreSQLValues.value(slot, attribute: attribute)
                case .foreignKey:
                    if case .reference(let reference) = slot { return .integer(reference.primaryKey) }
                    return .null
                case .entityNumber:
                    if case .reference(let reference) = slot { return .integer(Int64(reference.entityNumber)) }
                    return .null
                }
            }
        }
    }

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        // The row lock this UPDATE takes makes every other allocation for the hierarchy wait for
        // this transaction: no two processes get the same keys.
        let root = Int64(entity.layout!.root.layout!.entityNumber)
        let result = try session.run("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX", [.integer(Int64(count)), .integer(root)])
        guard let last = result.rows.first.flatMap({ $0.first }).flatMap(PostgreSQLValues.integer), last >= Int64(count) else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError, "The PostgreSQL store can't number new \(entity.name ?? "objects"): its Z_PRIMARYKEY has no usable row for them.")
        }
        return last - Int64(count) + 1
    }

    func insert(entity: NSEntityDescription, primaryKey: Int64, values: RowValues) throws {
        let plan = self.plan(entity)
        let binds: [PostgreSQLValue] = [.integer(primaryKey), .integer(Int64(entity.layout!.entityNumber)), .integer(1)] + plan.values(values)
        record(entity, primaryKey, .insert)
        guard plan.insertsInGroups else {
            try sendPendingRows()
            try run(plan.insert, binds, entity: entity, primaryKey: primaryKey)
            return
        }
        if let pending, pending.entity !== entity { try sendPendingRows() }
        if pending == nil {
            pending = (entity, [], 0)
            pending!.binds.reserveCapacity(plan.rowsPerInsert * binds.count)
        }
        pending!.binds += binds
        pending!.rows += 1
        if pending!.rows == plan.rowsPerInsert { try sendPendingRows() }
    }

    /// Sends the new rows waiting for their INSERT.
    private func sendPendingRows() throws {
        guard let group = pending else { return }
        pending = nil
        let plan = self.plan(group.entity)
        let sql: String
        if group.rows == plan.rowsPerInsert {
            let key = ObjectIdentifier(group.entity)
            sql = groupInserts[key] ?? plan.insertText(rows: group.rows)
            groupInserts[key] = sql
        } else {
            sql = plan.insertText(rows: group.rows)
        }
        try run(sql, group.binds, entity: nil, primaryKey: 0)
    }

    func update(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64, values: RowValues) throws -> Bool {
        try sendPendingRows()
        let plan = self.plan(entity)
        let binds: [PostgreSQLValue] = [.integer(expectedVersion + 1), .integer(primaryKey), .integer(expectedVersion)] + plan.values(values)
        let updated = try run(plan.update, binds, entity: entity, primaryKey: primaryKey) == 1
        if updated { record(entity, primaryKey, .update, values.changedSlots) }
        return updated
    }

    func delete(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64) throws -> Bool {
        try sendPendingRows()
        let preserved = history != nil ? try preservedValues(of: entity, primaryKey: primaryKey) : nil
        let deleted = try run(
            "DELETE FROM \(entity.tableName) WHERE Z_PK = $1 AND Z_OPT = $2", [.integer(primaryKey), .integer(expectedVersion)],
            entity: entity, primaryKey: primaryKey)
        for relationship in entity.layout!.relationships {
            guard let join = relationship.joinTable else { continue }
            try run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = $1", [.integer(primaryKey)], entity: nil, primaryKey: 0)
        }
        if deleted == 1, history != nil {
            if let preserved { tombstones[history!.changes.count] = preserved }
            record(entity, primaryKey, .delete)
        }
        return deleted == 1
    }

    /// The values of `entity`'s preserved attributes in the row about to be deleted, as its
    /// tombstone keeps them; nil when the entity preserves none.
    private func preservedValues(of entity: NSEntityDescription, primaryKey: Int64) throws -> [PostgreSQLValue]? {
        let preserved = HistoryTombstones.columns(of: entity)
        guard !preserved.isEmpty else { return nil }
        let columns = preserved.map(\.column).joined(separator: ", ")
        let row = try session.run("SELECT \(columns) FROM \(entity.tableName) WHERE Z_PK = $1", [.integer(primaryKey)]).rows.first
        return row?.map(PostgreSQLHistory.tombstoneText)
    }

    func currentRow(entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        try sendPendingRows()
        return try store.row(of: entity, primaryKey: primaryKey, on: session)
    }

    func rowMatching(entity: NSEntityDescription, slots: [Int], values: RowValues, excluding: Int64) throws -> Int64? {
        try sendPendingRows()
        var binds: [PostgreSQLValue] = []
        var conditions: [String] = []
        for slot in slots {
            let property = entity.properties[slot]
            guard let column = property.columnName else { continue }
            let attribute = property as? NSAttributeDescription
            binds.append(PostgreSQLValues.value(values.slots[slot], attribute: attribute))
            conditions.append("\(column) IS NOT DISTINCT FROM \(PostgreSQLValues.parameter(binds.count, for: attribute))")
        }
        binds.append(.integer(excluding))
        conditions.append("Z_PK <> $\(binds.count)")
        let result = try session.run("SELECT Z_PK FROM \(entity.tableName) WHERE \(conditions.joined(separator: " AND ")) LIMIT 1", binds)
        return result.rows.first.flatMap { $0.first }.flatMap(PostgreSQLValues.integer)
    }

    func setOrder(in relationship: NSRelationshipDescription, member: NSEntityDescription, primaryKey: Int64, position: Int64) throws {
        guard let column = relationship.orderColumn else { return }
        try sendPendingRows()
        try run("UPDATE \(member.tableName) SET \(column) = $1 WHERE Z_PK = $2", [.integer(position), .integer(primaryKey)], entity: nil, primaryKey: 0)
    }

    func insertPair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws {
        guard let table = relationship.pairTable else { return }
        try sendPendingRows()
        try run(
            "INSERT INTO \(table.name) (\(table.sourceColumn), \(table.destinationColumn)) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [.integer(source), .integer(destination)], entity: nil, primaryKey: 0)
    }

    func deletePair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws {
        guard let table = relationship.pairTable else { return }
        try sendPendingRows()
        try run(
            "DELETE FROM \(table.name) WHERE \(table.sourceColumn) = $1 AND \(table.destinationColumn) = $2",
            [.integer(source), .integer(destination)], entity: nil, primaryKey: 0)
    }

    func setPairOrder(of relationship: NSRelationshipDescription, source: Int64, destination: Int64, position: Int64) throws {
        guard let table = relationship.joinTable, let column = table.orderColumn else { return }
        try sendPendingRows()
        try run(
            "UPDATE \(table.name) SET \(column) = $1 WHERE \(table.sourceColumn) = $2 AND \(table.destinationColumn) = $3",
            [.integer(position), .integer(source), .integer(destination)], entity: nil, primaryKey: 0)
    }

    // MARK: Statements

    /// Runs a write; a broken unique index of `entity` is reported in the model's terms.
    @discardableResult
    private func run(_ sql: String, _ binds: [PostgreSQLValue], entity: NSEntityDescription?, primaryKey: Int64) throws -> Int {
        do {
            return try session.run(sql, binds).affectedRows
        } catch let error as PostgreSQLServerError where error.sqlState == "23505" && entity != nil {
            throw UniquenessViolation(entity: entity!, primaryKey: primaryKey, constraint: Self.constraint(named: error.constraint, of: entity!), detail: error.description)
        }
    }

    /// The constraint (of `entity` or an ancestor) whose unique index is `index`.
    private static func constraint(named index: String?, of entity: NSEntityDescription) -> [String]? {
        guard let index else { return nil }
        var current: NSEntityDescription? = entity
        while let candidate = current {
            for constraint in candidate.uniquenessConstraints {
                let names = VersionHasher.constraintNames(constraint)
                if PostgreSQLSchema.uniqueIndexName(candidate, names) == index { return names }
            }
            current = candidate.superentity
        }
        return nil
    }

    private func plan(_ entity: NSEntityDescription) -> EntityWrite {
        if let known = plans[ObjectIdentifier(entity)] { return known }
        let plan = EntityWrite(entity)
        plans[ObjectIdentifier(entity)] = plan
        return plan
    }
}
