import Foundation

/// A store in a PostgreSQL database: Core Data's tables (`PostgreSQLSchema`) in one schema per
/// store, shared by every process and machine that adds the same URL. Saves are transactions with
/// optimistic locking on `Z_OPT`, so two processes updating one object conflict as two contexts
/// do; primary keys are taken from `Z_PRIMARYKEY` under its row lock, so no two machines hand out
/// the same one; uniqueness constraints are unique indexes the server checks.
final class PostgreSQLStore: NSPersistentStore, @unchecked Sendable {
    // @unchecked Sendable: `sessions` and `plans` are set in `load(model:)`, before any context
    // reaches the store, and only read afterwards; `PostgreSQLSessions` serializes its own state.
    private var sessions: PostgreSQLSessions!
    /// The read plan of each hierarchy table, by its root's entity number.
    private var plans: [Int32: PostgreSQLRowPlan] = [:]

    override var type: String { PostgreSQLStoreInstaller.typeName }

    override class var holdsItsURLAlone: Bool { true }

    override func load(model: NSManagedObjectModel) throws {
        guard let driver = PostgreSQLStoreInstaller.driver.withLock({ $0 }) else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError,
                "The PostgreSQL store needs the OpenCoreDataPostgreSQL product: link it and name the type as NSPostgreSQLStoreType.",
                userInfo: [NSStoreTypeKey: type])
        }
        let endpoint = try PostgreSQLEndpoint(url: url!)
        sessions = PostgreSQLSessions(driver: driver, endpoint: endpoint)
        for entity in entities where entity.superentity == nil {
            plans[Int32(entity.layout!.entityNumber)] = PostgreSQLRowPlan(root: entity)
        }
        let entities = self.entities
        let found: [String: Any]
        do {
            found = try sessions.transaction { session in try Self.openSchema(session, endpoint: endpoint, model: model, entities: entities) }
        } catch {
            sessions.closeAll()
            throw PostgreSQLErrors.translate(error, endpoint: endpoint, opening: true)
        }
        if !Self.flag(NSIgnorePersistentStoreVersioningOption, in: options), !StoreMetadata.hashesMatch(found, entities: entities) {
            sessions.closeAll()
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store in schema '\(endpoint.schema)' at \(endpoint).",
                userInfo: ["metadata": found, NSStoreTypeKey: type])
        }
        metadata = found
        identifier = found[NSStoreUUIDKey] as? String ?? UUID().uuidString
    }

    /// Creates the store's tables when its schema has none, or reads its metadata: under an
    /// advisory lock, so that processes opening a new store at once create it once.
    private static func openSchema(
        _ session: any PostgreSQLSession, endpoint: PostgreSQLEndpoint, model: NSManagedObjectModel, entities: [NSEntityDescription]
    ) throws -> [String: Any] {
        _ = try session.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("OpenCoreData." + endpoint.schema)])
        _ = try session.run("CREATE SCHEMA IF NOT EXISTS \(endpoint.schema)", [])
        // The schema was just made the first on the search path: the table, if any, is the store's.
        let exists = try session.run("SELECT to_regclass('z_metadata') IS NOT NULL", []).rows.first?.first == .boolean(true)
        if exists {
            let row = try session.run("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1", []).rows.first ?? []
            guard row.count == 2, case .bytes(let plist) = row[1] else {
                throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The store's Z_METADATA row in schema '\(endpoint.schema)' holds no metadata.")
            }
            let uuid: String? = if case .text(let text) = row[0] { text } else { nil }
            return try StoreMetadata.decode(plist: plist, uuid: uuid)
        }
        return try create(session, model: model, entities: entities)
    }

    private static func create(_ session: any PostgreSQLSession, model: NSManagedObjectModel, entities: [NSEntityDescription]) throws -> [String: Any] {
        for statement in PostgreSQLSchema.statements(for: entities) { _ = try session.run(statement, []) }
        for entity in model.entitiesInStoreOrder {
            let superNumber = entity.superentity?.layout?.entityNumber ?? 0
            _ = try session.run(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES ($1, $2, $3, 0)",
                [.integer(Int64(entity.layout!.entityNumber)), .text(entity.name ?? ""), .integer(Int64(superNumber))])
        }
        let uuid = UUID().uuidString
        let metadata = StoreMetadata.make(for: model, entities: entities, uuid: uuid, type: PostgreSQLStoreInstaller.typeName)
        _ = try session.run(
            "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, $1, $2)", [.text(uuid), .bytes(try StoreMetadata.encode(metadata))])
        return metadata
    }

    override func close() { sessions?.closeAll() }

    override func replaceMetadata(_ metadata: [String: Any]) {
        self.metadata = metadata
        // Written at once: there is no file to carry it to the next save.
        _ = try? sessions.withSession { session in
            try session.run("UPDATE Z_METADATA SET Z_PLIST = $1 WHERE Z_VERSION = 1", [.bytes(try StoreMetadata.encode(metadata))])
        }
    }

    // MARK: Reading

    override func fetchRows(_ query: StoreQuery) throws -> [StoreRow] {
        try read { session in try PostgreSQLQuery(store: self, query: query).rows(on: session) }
    }

    override func countRows(_ query: StoreQuery) throws -> Int {
        try read { session in try PostgreSQLQuery(store: self, query: query).count(on: session) }
    }

    override func fetchDictionaries(_ query: StoreQuery, _ fetch: DictionaryFetch) throws -> [[String: Any]] {
        let model = persistentStoreCoordinator!.managedObjectModel
        var all = query
        all.fetchLimit = 0
        all.fetchOffset = 0
        all.sortDescriptors = []
        all.includesPropertyValues = true
        let rows = try fetchRows(all).map { StoreRowView(row: $0, model: model, store: self) }
        return try InMemoryDictionaries(store: self, entity: query.entity).compute(rows, fetch, query)
    }

    override func row(of entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        try read { session in try row(of: entity, primaryKey: primaryKey, on: session) }
    }

    /// The row of `entity`'s table with `primaryKey`, read on `session` (inside a save, it sees
    /// the transaction's own writes).
    func row(of entity: NSEntityDescription, primaryKey: Int64, on session: any PostgreSQLSession) throws -> StoreRow? {
        let plan = self.plan(of: entity)
        let result = try session.run("SELECT \(plan.selectList("t", values: true)) FROM \(plan.table) t WHERE t.Z_PK = $1", [.integer(primaryKey)])
        return result.rows.first.flatMap { plan.row($0, withValues: true) }
    }

    override func rows(of entity: NSEntityDescription, primaryKeys: [Int64]) throws -> [StoreRow] {
        guard !primaryKeys.isEmpty else { return [] }
        let plan = self.plan(of: entity)
        let numbers = entity.layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
        return try read { session in
            // One array parameter for any number of keys: `ANY($1)` with the keys as `int8[]` text.
            let keys = "{" + primaryKeys.map(String.init).joined(separator: ",") + "}"
            let result = try session.run(
                "SELECT \(plan.selectList("t", values: true)) FROM \(plan.table) t WHERE t.Z_PK = ANY($1::int8[]) AND t.Z_ENT IN (\(numbers))",
                [.text(keys)])
            return result.rows.compactMap { plan.row($0, withValues: true) }
        }
    }

    override func relatedReferences(_ relationship: NSRelationshipDescription, ofPrimaryKey primaryKey: Int64) throws -> [ObjectReference] {
        let destinationTable = relationship.destinationEntity!.layout!.tableName
        let sql: String
        if let inverse = relationship.inverseRelationship, let column = inverse.columnName {
            let order = inverse.orderColumnName.map { "\($0), " } ?? ""
            sql = "SELECT Z_PK, Z_ENT FROM \(destinationTable) WHERE \(column) = $1 ORDER BY \(order)Z_PK"
        } else if let join = relationship.joinTable {
            sql = """
                SELECT d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destinationTable) d ON d.Z_PK = j.\(join.destinationColumn) \
                WHERE j.\(join.sourceColumn) = $1 ORDER BY d.Z_PK
                """
        } else {
            return []
        }
        return try read { session in
            try session.run(sql, [.integer(primaryKey)]).rows.compactMap { row in
                guard row.count == 2, let key = PostgreSQLValues.integer(row[0]), let number = PostgreSQLValues.integer(row[1]),
                    entity(number: Int32(truncatingIfNeeded: number)) != nil
                else { return nil }
                return ObjectReference(entityNumber: Int32(number), primaryKey: key)
            }
        }
    }

    /// The read plan of `entity`'s hierarchy table.
    func plan(of entity: NSEntityDescription) -> PostgreSQLRowPlan {
        plans[Int32(entity.layout!.root.layout!.entityNumber)]!
    }

    /// Runs a read on a session, with the server's errors as Core Data's.
    private func read<T>(_ body: (any PostgreSQLSession) throws -> T) throws -> T {
        do {
            return try sessions.withSession(body)
        } catch {
            throw PostgreSQLErrors.translate(error, endpoint: sessions.endpoint, opening: false)
        }
    }

    // MARK: Writing

    override func save(_ body: (any StoreWriter) throws -> Void) throws {
        guard !isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The PostgreSQL store at \(sessions.endpoint) was added read-only.")
        }
        do {
            try sessions.transaction { session in
                try body(PostgreSQLWriter(store: self, session: session))
            }
        } catch let violation as UniquenessViolation {
            throw violation
        } catch {
            throw PostgreSQLErrors.translate(error, endpoint: sessions.endpoint, opening: false)
        }
    }

    override func reservePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        try read { session in try PostgreSQLWriter(store: self, session: session).allocatePrimaryKeys(for: entity, count: count) }
    }
}
