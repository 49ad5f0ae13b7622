import OpenCoreData

/// A store in a PostgreSQL database: Core Data's tables (`PostgreSQLSchema`) in one schema per
/// store, shared by every process and machine that adds the same URL. Saves are transactions with
/// optimistic locking on `Z_OPT`, so two processes updating one object conflict as two contexts
/// do; primary keys are taken from `Z_PRIMARYKEY` under its row lock, so no two machines hand out
/// the same one; uniqueness constraints are unique indexes the server checks.
final class PostgreSQLStore: NSPersistentStore, RowReadingStore, ChangeSavingStore, BatchRequestStore, HistoryTrackingStore,
    @unchecked Sendable
{
    // @unchecked Sendable: `sessions` and `plans` are set in `load(model:)`, before any context
    // reaches the store, and only read afterwards; `PostgreSQLSessions` serializes its own state.
    private var sessions: PostgreSQLSessions!
    /// The read plan of each hierarchy table, by its root's entity number.
    private var plans: [Int32: PostgreSQLRowPlan] = [:]
    /// Hears every commit to the store, for `NSPersistentStoreRemoteChange`; nil without the option.
    private var listener: PostgreSQLChangeListener?
    /// Whether saves and batch requests record persistent history (`NSPersistentHistoryTrackingKey`).
    private(set) var historyTracked = false
    /// The history's names this store knows the keys of, so that saves need not look them up.
    let historyNames = PostgreSQLHistoryNames()
    /// Every statement's SQL, for whoever observes it.
    let statementLog = SQLStatementLog()

    override var type: String { PostgreSQLStoreInstaller.typeName }

    static var holdsItsURLAlone: Bool { true }

    /// The metadata of the store at `url`, read from its `Z_METADATA` row on one connection that
    /// is closed afterwards; the store is not created.
    ///
    /// - Parameter url: A `postgres://` URL, as the store is added with.
    /// - Returns: The metadata, `NSStoreUUIDKey` and the model's version hashes among it.
    /// - Throws: `NSFileNoSuchFileError` (as for a missing SQLite file) when the schema holds no
    ///   store; the store's errors for a server that cannot be reached or refuses.
    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let driver = try installedDriver()
        let endpoint = try PostgreSQLEndpoint(url: url)
        let sessions = PostgreSQLSessions(driver: driver, endpoint: endpoint)
        defer { sessions.closeAll() }
        do {
            return try sessions.withSession { session in try readSchema(session, endpoint: endpoint) }
        } catch {
            throw PostgreSQLErrors.translate(error, endpoint: endpoint, opening: true)
        }
    }

    /// The connection driver `OpenCoreDataPostgreSQL` installed.
    ///
    /// - Throws: `NSPersistentStoreInvalidTypeError` when the product is not linked.
    private static func installedDriver() throws -> any PostgreSQLDriver {
        guard let driver = PostgreSQLStoreInstaller.driver.withLock({ $0 }) else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError,
                "The PostgreSQL store needs the OpenCoreDataPostgreSQL product: link it and name the type as NSPostgreSQLStoreType.",
                userInfo: [NSStoreTypeKey: PostgreSQLStoreInstaller.typeName])
        }
        return driver
    }

    func load(model: NSManagedObjectModel) throws {
        let driver = try Self.installedDriver()
        let endpoint = try PostgreSQLEndpoint(url: url!)
        let logging = persistentStoreCoordinator?.storeLogging ?? .off
        let statementLog = statementLog
        sessions = PostgreSQLSessions(driver: driver, endpoint: endpoint) { session in
            PostgreSQLLoggedSession(session, logging: logging, statementLog: statementLog)
        }
        for entity in entities where entity.superentity == nil {
            plans[Int32(entity.layout!.entityNumber)] = PostgreSQLRowPlan(root: entity)
        }
        let entities = self.entities
        let tracking = Self.historyTracking(in: options)
        // A read-only store is read, never created or changed: what a hot standby (a read replica)
        // allows.
        let readOnly = Self.flag(NSReadOnlyPersistentStoreOption, in: options)
        isReadOnly = readOnly
        var found: [String: Any]
        let holdsHistory: Bool
        do {
            (found, holdsHistory) = try sessions.transaction { session in
                let found =
                    try readOnly
                    ? Self.readSchema(session, endpoint: endpoint) : Self.openSchema(session, endpoint: endpoint, model: model, entities: entities)
                if tracking, !readOnly { try PostgreSQLHistory.prepare(session, entities: model.entities) }
                let holdsHistory = try !tracking
                    && session.run("SELECT to_regclass('atransaction') IS NOT NULL", []).rows.first?.first == .boolean(true)
                    && !session.run("SELECT 1 FROM ATRANSACTION LIMIT 1", []).rows.isEmpty
                return (found, holdsHistory)
            }
        } catch {
            sessions.closeAll()
            throw PostgreSQLErrors.translate(error, endpoint: endpoint, opening: true)
        }
        if !Self.flag(NSIgnorePersistentStoreVersioningOption, in: options), !StoreMetadata.hashesMatch(found, entities: entities) {
            do {
                found = try migrate(found, model: model, endpoint: endpoint)
            } catch {
                sessions.closeAll()
                throw PostgreSQLErrors.translate(error, endpoint: endpoint, opening: true)
            }
        }
        if !readOnly, model.hasDerivedAttributes {
            do {
                try sessions.transaction { session in try self.installDerivedTriggers(entities: entities, on: session) }
            } catch {
                sessions.closeAll()
                throw PostgreSQLErrors.translate(error, endpoint: endpoint, opening: true)
            }
        }
        metadata = found
        identifier = found[NSStoreUUIDKey] as? String ?? UUID().uuidString
        historyTracked = tracking
        if holdsHistory, !isReadOnly {
            // As Apple's stores: a save without history would leave the others' history incomplete.
            isReadOnly = true
            persistentStoreCoordinator?.storeLogging.logger.warning(
                "Store opened without NSPersistentHistoryTrackingKey but previously had been opened with NSPersistentHistoryTrackingKey - Forcing into Read Only mode store in schema '\(endpoint.schema)' at \(endpoint)")
        }
        if Self.postsRemoteChanges(in: options) {
            do {
                listener = try PostgreSQLChangeListener(
                    channel: PostgreSQLChangeListener.channel(for: endpoint), connect: { try driver.connect(endpoint) },
                    onChange: { [weak self] payload in self?.announceRemoteChange(historyNumber: Self.historyNumber(in: payload)) })
            } catch {
                sessions.closeAll()
                throw PostgreSQLErrors.translate(error, endpoint: endpoint, opening: true)
            }
        }
    }

    /// Migrates a store written with another version of the model in place, when the options ask
    /// for it, and returns its new metadata.
    ///
    /// - Throws: 134100 without `NSMigratePersistentStoresAutomaticallyOption` or on a read-only
    ///   store; the errors of `migrationPlan(for:model:location:incompatible:)`; 134110 when the
    ///   migration fails (the store is left as it was) or when only a compiled mapping model maps
    ///   the store, which needs contexts and a second store.
    private func migrate(_ found: [String: Any], model: NSManagedObjectModel, endpoint: PostgreSQLEndpoint) throws -> [String: Any] {
        let location = "schema '\(endpoint.schema)' at \(endpoint)"
        let incompatible = CoreDataError.make(
            NSPersistentStoreIncompatibleVersionHashError,
            "The model used to open the store is incompatible with the one used to create the store in \(location).",
            userInfo: ["metadata": found, NSStoreTypeKey: type])
        let plan: StoreMigrationPlan
        do {
            plan = try migrationPlan(for: found, model: model, location: location, incompatible: incompatible)
        } catch is MappingModelMigrationNeeded {
            throw InPlaceMigrationFailure.error(
                "the PostgreSQL store migrates in place with an inferred mapping; a compiled mapping model (with its policies) needs a second store, which a schema of a shared database is not given",
                underlying: nil, url: url!)
        }
        let entities = self.entities
        let log = persistentStoreCoordinator?.migrationLog ?? .off
        log.step("migrating the store in \(location) in place, with an inferred mapping model: \(plan.mapping.entityMappings.map { "\($0.name ?? "?") (\($0.mappingType))" }.joined(separator: ", "))")
        let started = Date()
        let progress = Progress(totalUnitCount: 1)
        let migrated = try sessions.transaction { session in
            // The lock that serializes creating the store: one process migrates, the others then
            // find it migrated.
            _ = try session.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("OpenCoreData." + endpoint.schema)])
            let current = try Self.readSchema(session, endpoint: endpoint)
            guard !StoreMetadata.hashesMatch(current, entities: entities) else { return current }
            let steps = InPlaceMigrationSteps(source: plan.source, destination: model, mapping: plan.mapping, progress: progress, log: log)
            try PostgreSQLInPlaceMigration(
                steps: steps, metadata: current, uuid: current[NSStoreUUIDKey] as? String ?? UUID().uuidString, url: url!
            ).run(on: session)
            return try Self.readSchema(session, endpoint: endpoint)
        }
        progress.completedUnitCount = progress.totalUnitCount
        log.completed("in-place migration", seconds: Date().timeIntervalSince(started))
        return migrated
    }

    /// The metadata of the store in the schema, which must exist: a read-only store is not created.
    private static func readSchema(_ session: any PostgreSQLSession, endpoint: PostgreSQLEndpoint) throws -> [String: Any] {
        guard let found = try metadataIfPresent(session, endpoint: endpoint) else {
            // The SQLite store's error for a missing file opened read-only.
            throw CoreDataError.make(
                NSFileNoSuchFileError,
                "There is no store in schema '\(endpoint.schema)' at \(endpoint) to open read-only: a store added read-only is not created.",
                userInfo: [PostgreSQLErrors.serverKey: endpoint.description])
        }
        return found
    }

    /// The store's metadata, from its `Z_METADATA` row; nil when the schema holds no store.
    private static func metadataIfPresent(_ session: any PostgreSQLSession, endpoint: PostgreSQLEndpoint) throws -> [String: Any]? {
        // The schema is the first on the search path: the table, if any, is the store's.
        let exists = try session.run("SELECT to_regclass('z_metadata') IS NOT NULL", []).rows.first?.first == .boolean(true)
        guard exists else { return nil }
        let row = try session.run("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1", []).rows.first ?? []
        guard row.count == 2, case .bytes(let plist) = row[1] else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The store's Z_METADATA row in schema '\(endpoint.schema)' holds no metadata.")
        }
        let uuid: String? = if case .text(let text) = row[0] { text } else { nil }
        return try StoreMetadata.decode(plist: plist, uuid: uuid)
    }

    /// Creates the store's tables when its schema has none, or reads its metadata: under an
    /// advisory lock, so that processes opening a new store at once create it once.
    private static func openSchema(
        _ session: any PostgreSQLSession, endpoint: PostgreSQLEndpoint, model: NSManagedObjectModel, entities: [NSEntityDescription]
    ) throws -> [String: Any] {
        _ = try session.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("OpenCoreData." + endpoint.schema)])
        _ = try session.run("CREATE SCHEMA IF NOT EXISTS \(endpoint.schema)", [])
        return try metadataIfPresent(session, endpoint: endpoint) ?? create(session, model: model, entities: entities)
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

    func close() {
        listener?.stop()
        sessions?.closeAll()
    }

    func replaceMetadata(_ metadata: [String: Any]) {
        self.metadata = metadata
        // Written at once: there is no file to carry it to the next save.
        _ = try? sessions.withSession { session in
            try session.run("UPDATE Z_METADATA SET Z_PLIST = $1 WHERE Z_VERSION = 1", [.bytes(try StoreMetadata.encode(metadata))])
        }
    }

    // MARK: Reading

    func fetchRows(_ query: StoreQuery) throws -> [StoreRow] {
        try read { session in try PostgreSQLQuery(store: self, query: query).rows(on: session) }
    }

    /// An asynchronous fetch's read: cancelling the fetch cancels the statement on the server.
    func fetchRows(_ query: StoreQuery, monitor: StoreReadMonitor, meter: RowMeter, chunks: RowChunks? = nil) throws -> [StoreRow] {
        try monitor.checkCancellation()
        let rows = try read { session in
            let pid = try sessions.backendPID(of: session)
            let watch = PostgreSQLCancelWatch(monitor: monitor) { [sessions] in sessions!.cancelStatement(ofBackend: pid) }
            defer { watch.stop() }
            do {
                return try PostgreSQLQuery(store: self, query: query).rows(on: session)
            } catch let error as PostgreSQLServerError where error.sqlState == "57014" && monitor.isCancelled {
                throw StoreReadCancelled(underlying: CoreDataError.make(
                    NSUserCancelledError, "The fetch was cancelled; the PostgreSQL server stopped its statement: \(error).",
                    userInfo: [PostgreSQLErrors.sqlStateKey: error.sqlState]))
            }
        }
        meter.rowsRead(rows.count)
        try monitor.checkCancellation()
        return rows
    }

    func countRows(_ query: StoreQuery) throws -> Int {
        try read { session in try PostgreSQLQuery(store: self, query: query).count(on: session) }
    }

    func fetchDictionaries(_ query: StoreQuery, _ fetch: DictionaryFetch) throws -> [[String: Any]] {
        try InMemoryDictionaries(store: self, entity: query.entity).validate(fetch)
        let dictionaries = PostgreSQLDictionaryQuery(store: self, query: query, fetch: fetch)
        if let statement = try dictionaries.statement() {
            return try read { session in dictionaries.dictionaries(try session.run(statement.sql, statement.binds).rows, statement) }
        }
        // What SQL cannot hold exactly is computed over the rows, in memory.
        let model = persistentStoreCoordinator!.managedObjectModel
        var all = query
        all.fetchLimit = 0
        all.fetchOffset = 0
        all.sortDescriptors = []
        all.includesPropertyValues = true
        let rows = try fetchRows(all).map { StoreRowView(row: $0, model: model, store: self) }
        return try InMemoryDictionaries(store: self, entity: query.entity).compute(rows, fetch, query)
    }

    func row(of entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        try read { session in try row(of: entity, primaryKey: primaryKey, on: session) }
    }

    /// The row of `entity`'s table with `primaryKey`, read on `session` (inside a save, it sees
    /// the transaction's own writes).
    func row(of entity: NSEntityDescription, primaryKey: Int64, on session: any PostgreSQLSession) throws -> StoreRow? {
        let plan = self.plan(of: entity)
        let result = try session.run("SELECT \(plan.selectList("t", values: true)) FROM \(plan.table) t WHERE t.Z_PK = $1", [.integer(primaryKey)])
        return plan.rows(result.rows, withValues: true).first
    }

    func rows(of entity: NSEntityDescription, primaryKeys: [Int64]) throws -> [StoreRow] {
        guard !primaryKeys.isEmpty else { return [] }
        let plan = self.plan(of: entity)
        let numbers = entity.layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
        return try read { session in
            // One array parameter for any number of keys: `ANY($1)` with the keys as `int8[]` text.
            let keys = "{" + primaryKeys.map(String.init).joined(separator: ",") + "}"
            let result = try session.run(
                "SELECT \(plan.selectList("t", values: true)) FROM \(plan.table) t WHERE t.Z_PK = ANY($1::int8[]) AND t.Z_ENT IN (\(numbers))",
                [.text(keys)])
            return plan.rows(result.rows, withValues: true)
        }
    }

    func relatedReferences(_ relationship: NSRelationshipDescription, ofPrimaryKey primaryKey: Int64) throws -> [ObjectReference] {
        guard let sql = relationship.destinationKeysSQL(parameter: "$1") else { return [] }
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

    func save(_ body: (any StoreWriter) throws -> Void) throws {
        guard !isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The PostgreSQL store at \(sessions.endpoint) was added read-only.")
        }
        try write { session in
            // Where the derived-attribute triggers report the values they compute.
            if persistentStoreCoordinator?.managedObjectModel.hasDerivedAttributes == true {
                _ = try session.run(PostgreSQLDerivedTriggers.createLog, [])
            }
            let writer = PostgreSQLWriter(store: self, session: session)
            try body(writer)
            try writer.finish()
        }
    }

    /// Runs `body` in one transaction that, when it commits, notifies every listening coordinator.
    func write<T>(_ body: (any PostgreSQLSession) throws -> T) throws -> T {
        let channel = PostgreSQLChangeListener.channel(for: sessions.endpoint)
        // The history names the transaction looked up become known only if it commits.
        var used: (any PostgreSQLSession)?
        var committed = false
        defer { if let used { historyNames.end(on: used, committed: committed) } }
        do {
            let result = try sessions.transaction { session in
                used = session
                let result = try body(session)
                // Delivered to every listening coordinator when, and only if, the transaction commits.
                // With history, the payload carries the last transaction number (this one's, under
                // its row lock), so that listeners make the notification's token without a query.
                let payload = historyTracked ? "$2 || ' ' || (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(HistoryEntityNumbers.transaction))" : "$2"
                _ = try session.run("SELECT pg_notify($1, \(payload))", [.text(channel), .text(identifier ?? "")])
                return result
            }
            committed = true
            return result
        } catch let violation as UniquenessViolation {
            throw violation
        } catch {
            throw PostgreSQLErrors.translate(error, endpoint: sessions.endpoint, opening: false)
        }
    }

    // MARK: Persistent history (PostgreSQLHistory.swift)

    var tracksPersistentHistory: Bool { historyTracked }

    func fetchHistory(
        _ boundary: HistoryBoundary, withChanges: Bool, change: (Int, HistoryChangeRecord) -> Void
    ) throws -> [HistoryTransactionRecord] {
        guard historyTracked else { throw Self.historyNotTracked() }
        return try read { session in
            let tombstones = HistoryTombstones.columnCount(for: persistentStoreCoordinator?.managedObjectModel.entities ?? entities)
            return try PostgreSQLHistory.read(
                boundary, withChanges: withChanges, tombstones: tombstones, on: session, entity: { [weak self] in self?.entity(number: $0) },
                change: change)
        }
    }

    func deleteHistory(_ boundary: HistoryBoundary) throws -> Int {
        guard historyTracked else { throw Self.historyNotTracked() }
        let (condition, binds) = PostgreSQLHistory.condition(boundary)
        return try write { session in
            _ = try session.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", binds)
            return try session.run("DELETE FROM ATRANSACTION t WHERE \(condition)", binds).affectedRows
        }
    }

    func historyRange() throws -> ClosedRange<Int64>? {
        guard historyTracked else { throw Self.historyNotTracked() }
        return try read { session in
            let row = try session.run("SELECT min(Z_PK), max(Z_PK) FROM ATRANSACTION", []).rows.first ?? []
            guard row.count == 2, let low = PostgreSQLValues.integer(row[0]), let high = PostgreSQLValues.integer(row[1]) else { return nil }
            return low...high
        }
    }

    /// The history transaction number a change notification's payload (`<store UUID> <number>`) carries.
    static func historyNumber(in payload: String?) -> Int64? {
        guard let payload, let space = payload.lastIndex(of: " ") else { return nil }
        return Int64(payload[payload.index(after: space)...])
    }

    func lastHistoryNumber() throws -> Int64 {
        guard historyTracked else { throw Self.historyNotTracked() }
        return try read { session in
            try session.run("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $1", [.integer(HistoryEntityNumbers.transaction)])
                .rows.first?.first.flatMap(PostgreSQLValues.integer) ?? 0
        }
    }

    // MARK: Batch requests (PostgreSQLStore+Batch.swift)

    func executeBatchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome { try runBatchUpdate(request) }
    func executeBatchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome { try runBatchDelete(request) }
    func executeBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome { try runBatchInsert(request) }

    func reservePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        try read { session in try PostgreSQLWriter(store: self, session: session).allocatePrimaryKeys(for: entity, count: count) }
    }
}
