import GRDB
import GRDBSQLite
import Synchronization

/// Core Data's SQLite store, reading and writing Apple's on-disk format (docs/sqlite-format.md), over a GRDB
/// `DatabasePool`: WAL, one writer, concurrent readers.
final class SQLiteStore: NSPersistentStore, RowReadingStore, ChangeSavingStore, BatchRequestStore, HistoryTrackingStore,
    StoreFileOperations, DeferredMigrationStore, @unchecked Sendable
{
    // @unchecked Sendable: `pool` is thread-safe; the plans and number maps are built in `load`
    // before the store is published to the coordinator and never change afterwards;
    // `metadata`/`metadataChanged` are written only inside the pool's serialized writes.

    private(set) var pool: DatabasePool?
    var metadataChanged = false
    /// Whether the store was added with `NSPersistentHistoryTrackingKey` (SQLiteStore+History).
    var historyTracked = false
    /// Reports commits for `NSPersistentStoreRemoteChange`, when the options ask for it.
    private(set) var changeWatcher: SQLiteChangeWatcher?
    private(set) var plans: [Int32: SQLiteHierarchyPlan] = [:]
    /// Whether an attribute of the model allows external storage: a save then writes large
    /// values to files beside the store.
    private var storesExternalData = false
    /// Model entity number → the Z_ENT this file uses for it, and back. Apple stores are read
    /// through Z_PRIMARYKEY names rather than assuming our numbering (docs/sqlite-format.md §13).
    private var storeNumberOf: [Int32: Int32] = [:]
    private(set) var modelNumberOf: [Int32: Int32] = [:]
    /// The coordinator's model, kept here so that a read on another thread (a batch read ahead)
    /// does not depend on the coordinator still being there.
    private(set) var model: NSManagedObjectModel?
    /// Committed writes through this store, for the batches read ahead (`SQLiteStore+ReadAhead`).
    let writes = Atomic<Int>(0)
    /// Where batches of `fetchBatchSize` fetches are read ahead; stopped before the pool closes.
    let readAheadQueue = DispatchQueue(label: "OpenCoreData.SQLiteStore.ReadAhead")
    /// Set by `close()`, read only on `readAheadQueue`: reads queued after it do not touch the pool.
    var readAheadStopped = false

    override var type: String { NSSQLiteStoreType }

    /// For a store at `/dev/null`, a folder of its own in the temporary directory, which holds its
    /// file while the store is open and goes with it. That URL is Core Data's in-memory SQLite
    /// store (Xcode's templates use it for previews and tests): it starts empty every time and
    /// keeps nothing, but is a SQLite store in every other way, history included.
    private var scratchFolder: URL?
    /// Where the store's file is: its URL, or the scratch file of a store at `/dev/null`.
    var fileURL: URL? { scratchFolder?.appendingPathComponent("InMemory.sqlite") ?? url }

    /// Whether `url` is `/dev/null`, where Core Data keeps a SQLite store in memory. File
    /// operations (destroy, replace, metadata) must never touch that path itself.
    static func isNullDevice(_ url: URL) -> Bool { url.isFileURL && url.standardizedFileURL.path == "/dev/null" }

    /// Removes the scratch folder of a store at `/dev/null`, if there is one.
    private func removeScratchFolder() {
        guard let folder = scratchFolder else { return }
        scratchFolder = nil
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { removeScratchFolder() }

    /// How long a connection waits for another's lock: `NSPersistentStoreTimeoutOption`, else
    /// `defaultTimeout`.
    static func timeout(in options: [AnyHashable: Any]?) -> TimeInterval {
        let value = options?[NSPersistentStoreTimeoutOption]
        let seconds = (value as? NSNumber)?.doubleValue ?? (value as? Double) ?? (value as? Int).map(Double.init)
        guard let seconds, seconds.isFinite, seconds >= 0 else { return defaultTimeout }
        return min(seconds, 24 * 3600)
    }

    /// `NSPersistentStoreDescription.timeout`'s default, for stores added without the option.
    static let defaultTimeout: TimeInterval = 240

    // The coordinator's file operations (StoreFileOperations), in SQLiteStoreFiles.
    static func destroyStore(at url: URL, options: [AnyHashable: Any]?) throws { try SQLiteStoreFiles.destroyStore(at: url) }
    static func replaceStore(at destination: URL, withStoreFrom source: URL) throws {
        try SQLiteStoreFiles.replaceStore(at: destination, withStoreFrom: source)
    }
    func copyForMigration(to destination: URL) throws { try SQLiteStoreFiles.copy(self, forMigrationTo: destination) }
    static func discardStoreFiles(at url: URL) { SQLiteFileCheck.removeStoreFiles(atPath: url.path) }
    static var holdsItsURLAlone: Bool { true }
    func finishDeferredMigration() throws { try finishDeferredTableCopies() }
    static func installMigratedStore(from source: URL, at destination: URL) throws {
        try SQLiteStoreFiles.install(migrated: source, at: destination)
    }

    /// Sees the SQL text of every statement the store's connections run (for tests that count
    /// queries, and for debugging).
    let statementLog = SQLStatementLog()
    /// The SQL debug tracers of the store's connections (`-com.apple.CoreData.SQLDebug`), kept
    /// as long as the store: SQLite holds them unretained.
    private let tracers = Locked<[SQLiteStatementTracer]>([])
    /// What derived-attribute triggers report during a save (SQLiteDerivedValues.swift).
    let derivedReports = SQLiteDerivedReports()
    /// A migration the store's metadata called for, run once the file is open.
    private var pendingMigration: StoreMigrationPlan?

    func load(model: NSManagedObjectModel) throws {
        self.model = model
        guard let given = url, given.isFileURL else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "A SQLite store needs a file URL, got \(self.url?.absoluteString ?? "nil").")
        }
        if Self.isNullDevice(given), scratchFolder == nil {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreData-InMemory-\(UUID().uuidString)")
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw CoreDataError.make(
                    NSPersistentStoreOpenError, "Can't make a folder for the in-memory store at /dev/null: \(error.localizedDescription)",
                    userInfo: [NSUnderlyingErrorKey: error])
            }
            scratchFolder = folder
        }
        let url = fileURL!
        let path = url.path
        isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        // A failed open leaves no trace: a connection to a WAL file makes its -wal and -shm
        // files, even a read-only one, and those this open made go again.
        let sidecars = ["-wal", "-shm"].filter { !FileManager.default.fileExists(atPath: path + $0) }
        do {
            // Before anything connects: the file checks' connections would make an empty -wal.
            SQLiteWriteAheadLog.prepare(forStoreAt: path)
            try open(model: model, url: url)
        } catch {
            pool = nil
            for suffix in sidecars { try? FileManager.default.removeItem(atPath: path + suffix) }
            removeScratchFolder()
            throw error
        }
    }

    /// Takes the metadata of a store found on disk, refusing one written with another model.
    ///
    /// - Throws: `NSPersistentStoreIncompatibleVersionHashError` when the version hashes differ.
    private func adopt(_ found: [String: Any], uuid: String, entities: [NSEntityDescription], path: String) throws {
        let ignoresVersions = Self.flag(NSIgnorePersistentStoreVersioningOption, in: options)
        if !ignoresVersions, !StoreMetadata.hashesMatch(found, entities: entities) {
            let incompatible = CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store at \(path).",
                userInfo: ["metadata": found, NSFilePathErrorKey: path])
            // Migrated once the file is open (`open(model:url:)`).
            pendingMigration = try migrationPlan(
                for: found, model: model!, location: path, incompatible: incompatible,
                cachedModel: { SQLiteFileCheck.readModelCache(atPath: path).flatMap(ModelCache.model(from:)) })
        }
        metadata = found
        identifier = found[NSStoreUUIDKey] as? String ?? uuid
    }

    /// Opens the store file, or creates it; `load(model:)` cleans up after a failure.
    private func open(model: NSManagedObjectModel, url: URL) throws {
        let path = url.path
        let entities = self.entities
        let timeout = Self.timeout(in: options)
        // A store that looks new is created by one process at a time; the others wait, then find
        // it made (the look is repeated under the lock).
        let looksNew = { !SQLiteFileCheck.hasContent(atPath: path) || SQLiteFileCheck.isEmptyDatabase(atPath: path, timeout: timeout) }
        var existing = !looksNew()
        var creationLock: SQLiteCreationLock?
        defer { creationLock?.unlock() }
        if !isReadOnly, !existing {
            creationLock = try SQLiteCreationLock.take(folder: url.deletingLastPathComponent().path, timeout: timeout, path: path)
            existing = !looksNew()
        }
        let fileExisted = FileManager.default.fileExists(atPath: path)
        if existing {
            let found = try SQLiteFileCheck.readMetadata(atPath: path, timeout: timeout)
            try adopt(found.metadata, uuid: UUID().uuidString, entities: entities, path: path)
        } else {
            try SQLiteFileCheck.checkCreatable(path: path, readOnly: isReadOnly)
            identifier = UUID().uuidString
            metadata = SQLiteMetadata.make(for: model, entities: entities, uuid: identifier)
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration())
            if let plan = pendingMigration {
                pendingMigration = nil
                metadata = try migrate(plan, model: model, entities: entities, path: path)
            }
            if !existing, let found = try createSchema(entities: entities) {
                // Another process created the store between our look and our lock: use theirs.
                try adopt(found.metadata, uuid: found.uuid, entities: entities, path: path)
            }
            try loadEntityNumbers(entities: entities)
            if existing, !isReadOnly { try addMissingOrderColumns(entities: entities) }
            if !isReadOnly { try installDerivedTriggers(entities: entities) }
            try prepareHistory(entities: entities)
        } catch {
            try? pool?.close()
            pool = nil
            // Only a file this open made and left empty: an empty file that was there stays the
            // user's, and a store another process created meanwhile stays theirs.
            if !fileExisted, !SQLiteFileCheck.hasContent(atPath: path) || SQLiteFileCheck.isEmptyDatabase(atPath: path, timeout: timeout) {
                SQLiteFileCheck.removeStoreFiles(atPath: path)
            }
            throw SQLiteFileCheck.coreDataError(error, path: path)
        }
        for entity in entities where entity.superentity == nil {
            plans[Int32(entity.layout!.entityNumber)] = SQLiteHierarchyPlan(root: entity, storeNumber: storeNumber)
        }
        storesExternalData = entities.contains { entity in
            entity.declaredProperties.contains { ($0 as? NSAttributeDescription)?.allowsExternalBinaryDataStorage == true && !$0.isTransient }
        }
        if Self.postsRemoteChanges(in: options) {
            changeWatcher = SQLiteChangeWatcher(path: path) { [weak self] in self?.announceRemoteChange() }
        }
    }

    func close() {
        changeWatcher?.stop()
        changeWatcher = nil
        // A batch being read ahead uses the pool until it is done; later ones leave it alone.
        readAheadQueue.sync { readAheadStopped = true }
        // Fold the write-ahead log into the file first. SQLite does so when the last connection
        // closes, but GRDB closes its writer before its read-only readers, which cannot: the latest
        // saves would stay in the -wal file, and the store file alone (a backup, a copy) would lack
        // them, where Core Data leaves a self-contained file once a store is removed. Only after
        // writes: GRDB logs a no-op transaction on every open, and folding it in would rewrite
        // the file's header although nothing was saved (SQLiteWriteAheadLog).
        if !isReadOnly {
            _ = try? pool?.writeWithoutTransaction { db in
                if db.totalChangesCount > 0 { try db.checkpoint(.truncate) }
            }
        }
        let wasOpen = pool != nil
        try? pool?.close()
        pool = nil
        if wasOpen, let path = fileURL?.path { SQLiteWriteAheadLog.closeLastConnection(toStoreAt: path) }
        removeScratchFolder()
    }

    private func configuration() -> Configuration {
        var config = Configuration()
        config.readonly = isReadOnly
        config.label = "OpenCoreData.SQLiteStore"
        // Another process (an app's extension, a second command, a server's worker) may hold the
        // write lock: wait for it, as Core Data does, instead of failing at once.
        config.busyMode = .timeout(Self.timeout(in: options))
        // The store's memory mapping first, so that the app's pragmas may set another size (0 turns it off).
        let mapping = SQLiteMemoryMapping.defaultSize > 0 ? [("mmap_size", "\(SQLiteMemoryMapping.defaultSize)")] : []
        let pragmas = mapping + ((options?[NSSQLitePragmasOption] as? [String: Any]) ?? [:]).map { ($0.key, "\($0.value)") }
        let log = statementLog
        let logging = persistentStoreCoordinator?.storeLogging ?? .off
        let tracers = self.tracers
        let derivedReports = self.derivedReports
        config.prepareDatabase { db in
            if logging.level > 0 {
                let tracer = SQLiteStatementTracer.install(on: db, logging: logging, statementLog: log)
                tracers.withLock { $0.append(tracer) }
            } else {
                db.trace(options: .statement) { event in
                    if case .statement(let statement) = event { log.record(statement.sql) }
                }
            }
            // Derived attributes' triggers (Apple's, and ours) call these.
            derivedReports.register(on: db)
            // Predicates and sort descriptors compile to these (SQLPredicateCompiler, SQLiteQueryBuilder).
            SQLPredicateFunctions.register(on: db)
            for (name, value) in pragmas where name.allSatisfy({ $0.isLetter || $0 == "_" }) {
                try db.execute(sql: "PRAGMA \(name) = \(value)")
            }
        }
        return config
    }

    /// Creates the store's tables and rows in one transaction, so that a store appears whole or
    /// not at all, even when the process is killed meanwhile (a file left empty is taken as a new
    /// store next time). Returns the metadata of a store that another process created first, in
    /// which case nothing is written.
    private func createSchema(entities: [NSEntityDescription]) throws -> (metadata: [String: Any], uuid: String)? {
        try pool!.barrierWriteWithoutTransaction { db in
            // Core Data stores use incremental auto-vacuum (docs/sqlite-format.md §1). The pragma only takes
            // on an empty file once VACUUM rewrites it, which costs nothing before any table exists.
            if try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0 {
                try db.execute(sql: "PRAGMA auto_vacuum = 2")
                try db.execute(sql: "VACUUM")
            }
            var found: (metadata: [String: Any], uuid: String)?
            try db.inTransaction(.immediate) {
                if try db.tableExists("Z_METADATA") {
                    guard let (plist, uuid) = try SQLiteMetadata.row(in: db) else {
                        throw SQLiteFileCheck.notAStore(url!.path, reason: "its Z_METADATA table is empty", sqliteCode: nil)
                    }
                    found = (try StoreMetadata.decode(plist: plist, uuid: uuid), uuid)
                    return .commit
                }
                for sql in SQLiteSchema.fixedTables + SQLiteSchema.statements(for: entities) {
                    try db.execute(sql: sql)
                }
                let model = persistentStoreCoordinator!.managedObjectModel
                for entity in model.entitiesInStoreOrder where entities.contains(where: { $0 === entity }) {
                    try db.execute(
                        sql: "INSERT INTO Z_PRIMARYKEY(Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                        arguments: [entity.layout!.entityNumber, entity.name!, entity.superentity?.layout!.entityNumber ?? 0])
                }
                // History tables with the rest, so that a new store is whole with them or absent.
                if Self.historyTracking(in: options) {
                    try SQLiteHistorySchema.create(in: db, tombstones: HistoryTombstones.columnCount(for: model.entities))
                }
                try db.execute(
                    sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                    arguments: [identifier, try StoreMetadata.encode(metadata)])
                // The model, as Core Data caches it, so that the store migrates once the app no
                // longer ships this version of it.
                if let cache = ModelCache.content(for: model) {
                    try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [cache])
                }
                return .commit
            }
            return found
        }
    }

    private func loadEntityNumbers(entities: [NSEntityDescription]) throws {
        let rows = try storeRead { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        }
        var byName: [String: Int32] = [:]
        // Plain database values, as for the metadata: a damaged table may hold anything.
        for row in rows {
            if let name = String.fromDatabaseValue(row["Z_NAME"] as DatabaseValue),
                let number = Int32.fromDatabaseValue(row["Z_ENT"] as DatabaseValue)
            {
                byName[name] = number
            }
        }
        for entity in entities {
            let modelNumber = Int32(entity.layout!.entityNumber)
            let storeNumber =
                byName[entity.name!] ?? entity.renamingIdentifier.flatMap { byName[$0] } ?? modelNumber
            storeNumberOf[modelNumber] = storeNumber
            modelNumberOf[storeNumber] = modelNumber
        }
    }

    func storeNumber(_ entity: NSEntityDescription) -> Int32 {
        let number = Int32(entity.layout!.entityNumber)
        return storeNumberOf[number] ?? number
    }

    /// The model's number of the entity whose `Z_ENT` is `storeNumber` in this file; 0, which no
    /// entity has, for a number the file should not hold (a damaged file), so that readers refuse
    /// the row or drop the reference rather than look up an entity that does not exist.
    func modelNumber(_ storeNumber: Int32) -> Int32 { modelNumberOf[storeNumber] ?? 0 }

    /// A read on one of the pool's connections, or on the pinned generation's snapshot when the
    /// context reading is pinned to one (`NSQueryGenerationToken`). SQLite's errors leave as Core Data's
    /// (`SQLiteFileCheck.operationError`): the coordinator and contexts know no SQLite, and a
    /// damaged file's error reaches the app as the `NSError` it catches.
    func storeRead<T>(_ body: (Database) throws -> T) throws -> T {
        try read(inTransaction: true, body)
    }

    /// `storeRead(_:)` for a body whose statements need not agree with each other: each one
    /// statement, or statements whose results stand alone (a read that is replaced by another).
    /// SQLite reads every statement from one snapshot of the file, so the transaction that
    /// `storeRead` opens around its body, a `BEGIN` and a `COMMIT` run as statements of their own,
    /// adds nothing to them but its cost (5% of the samples of a first ten-row fetch, in a profile;
    /// every fault that fires pays it too).
    func statementRead<T>(_ body: (Database) throws -> T) throws -> T {
        try read(inTransaction: false, body)
    }

    private func read<T>(inTransaction: Bool, _ body: (Database) throws -> T) throws -> T {
        do {
            // A pinned generation's snapshot is one long transaction already.
            if let snapshot = pinnedSnapshot { return try snapshot.read(body) }
            return try inTransaction ? pool!.read(body) : pool!.unsafeRead(body)
        } catch let error as DatabaseError {
            throw SQLiteFileCheck.operationError(error, path: url!.path, timeout: Self.timeout(in: options))
        }
    }

    // MARK: Reading

    func fetchRows(_ query: StoreQuery, monitor: StoreReadMonitor, meter: RowMeter, chunks: RowChunks? = nil) throws -> [StoreRow] {
        try interruptibleRows(query, monitor: monitor, meter: meter, chunks: chunks)
    }

    /// The rows of `query` in its order: read in table order and sorted in memory when the sort
    /// allows (`SQLiteMemorySort`), else ordered by SQL.
    func fetchRows(_ query: StoreQuery) throws -> [StoreRow] {
        let builder = SQLiteQueryBuilder(store: self)
        let plan = plans[Int32(query.entity.layout!.root.layout!.entityNumber)]!
        return try statementRead { db in
            if let (sql, sort) = try builder.unorderedSelect(query) {
                var rows = try withReadStatement(sql, db: db) { statement in
                    try readRows(statement, plan: plan, values: query.includesPropertyValues, db: db, onRow: sort.add)
                }
                if sort.sort(&rows) { return rows }
            }
            return try withReadStatement(try builder.select(query), db: db) { statement in
                try readRows(statement, plan: plan, values: query.includesPropertyValues, db: db)
            }
        }
    }

    func fetchRows(_ query: StoreQuery, inChunks body: (inout [StoreRow]) throws -> Void) throws {
        try readInChunks(query, body)
    }

    /// IDs made from keys, no intermediate rows, one allocation per ID; a long read goes on on
    /// another thread meanwhile (`readInChunks`).
    func fetchObjectIDs(_ query: StoreQuery) throws -> [NSManagedObjectID] {
        var maker = ObjectIDMaker(store: self)
        return try readKeys(query) { maker.objectID($0) }
    }

    /// Keys and model entity numbers, 16 bytes a row, read as object IDs are.
    func fetchReferences(_ query: StoreQuery) throws -> [ObjectReference] {
        try readKeys(query) { ObjectReference(entityNumber: modelNumber($0.storeNumber), primaryKey: $0.primaryKey) }
    }

    /// What `make` turns each key of `query`'s rows into, in the query's order.
    private func readKeys<Element>(_ query: StoreQuery, _ make: (SQLiteKeyReader.Key) -> Element) throws -> [Element] {
        let builder = SQLiteQueryBuilder(store: self)
        // A table of one entity selects the key alone (`select(_:identitiesOnly:)`).
        let root = query.entity.layout!.root
        let sole = (plans[Int32(root.layout!.entityNumber)] ?? SQLiteHierarchyPlan(root: root, storeNumber: storeNumber)).soleStoreNumber
        return try statementRead { db in
            func read(_ sql: SQLFragment, onRow: ((OpaquePointer) -> Void)? = nil) throws -> [Element] {
                var elements: [Element] = []
                // A sort in memory takes each row's sort keys as the reader steps it; the
                // elements, made meanwhile in reading order, are sorted once every row is in.
                try withReadStatement(sql, db: db) { statement in
                    try readInChunks(SQLiteKeyReader(statement, soleStoreNumber: sole, db: db, onRow: onRow)) { keys in
                        for key in keys { elements.append(make(key)) }
                    }
                }
                return elements
            }
            if let (sql, sort) = try builder.unorderedSelect(query, identitiesOnly: true) {
                var elements = try read(sql, onRow: sort.add)
                if sort.sort(&elements) { return elements }
            }
            return try read(try builder.select(query, identitiesOnly: true))
        }
    }

    /// Makes the IDs of a store's keys, finding each entity once for a run of rows of one entity.
    private struct ObjectIDMaker {
        private let store: SQLiteStore
        private let identity: StoreIdentity
        private var lookup: EntityLookup
        private var lastStoreNumber: Int32 = -1
        private var entity: NSEntityDescription?

        init(store: SQLiteStore) {
            self.store = store
            identity = store.identity!
            lookup = EntityLookup(store: store)
        }

        mutating func objectID(_ key: SQLiteKeyReader.Key) -> NSManagedObjectID {
            if key.storeNumber != lastStoreNumber {
                entity = lookup.entity(store.modelNumber(key.storeNumber))
                lastStoreNumber = key.storeNumber
            }
            return NSManagedObjectID(entity: entity!, storeIdentity: identity, primaryKey: key.primaryKey)
        }
    }

    func countRows(_ query: StoreQuery) throws -> Int {
        let sql = try SQLiteQueryBuilder(store: self).count(query)
        return try statementRead { db in
            try withReadStatement(sql, db: db) { statement in
                let code = sqlite3_step(statement.sqliteStatement)
                guard code == SQLITE_ROW else { throw stepFailure(code, statement, connection: db.sqliteConnection) }
                return Int(sqlite3_column_int64(statement.sqliteStatement, 0))
            }
        }
    }

    func row(of entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        try statementRead { db in try row(of: entity, primaryKey: primaryKey, in: db) }
    }

    /// The row with `primaryKey` in `entity`'s table, read on `db` (inside a write, it sees the
    /// transaction's own changes).
    func row(of entity: NSEntityDescription, primaryKey: Int64, in db: Database) throws -> StoreRow? {
        let plan = plans[Int32(entity.layout!.root.layout!.entityNumber)]!
        let statement = try db.cachedStatement(sql: "SELECT \(plan.selectList) FROM \(plan.table) WHERE Z_PK = ?")
        statement.setUncheckedArguments([primaryKey])
        return try readRows(statement, plan: plan, values: true, db: db).first
    }

    func relatedReferences(
        _ relationship: NSRelationshipDescription, ofPrimaryKey primaryKey: Int64
    ) throws -> [ObjectReference] {
        guard let sql = relationship.destinationKeysSQL(parameter: "?") else { return [] }
        return try statementRead { db in
            // Rows whose Z_ENT is no entity (a damaged file) are left out, like a dangling to-one.
            try Row.fetchAll(db, sql: sql, arguments: [primaryKey]).compactMap { row in
                let number = Int32.fromDatabaseValue(row[1] as DatabaseValue).map(modelNumber) ?? 0
                guard number != 0, let key = Int64.fromDatabaseValue(row[0] as DatabaseValue) else { return nil }
                return ObjectReference(entityNumber: number, primaryKey: key)
            }
        }
    }

    func fetchDictionaries(_ query: StoreQuery, _ fetch: DictionaryFetch) throws -> [[String: Any]] {
        let builder = SQLiteDictionaryQuery(store: self)
        let (sql, selected) = try builder.statement(query, fetch)
        let externalData = externalDataReader
        return try statementRead { db in
            try withReadStatement(sql, db: db) { statement in
                let handle = statement.sqliteStatement
                var result: [[String: Any]] = []
                while true {
                    let code = sqlite3_step(handle)
                    if code == SQLITE_DONE { break }
                    guard code == SQLITE_ROW else {
                        throw DatabaseError(
                            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
                    }
                    result.append(builder.read(handle, selected, externalData: externalData))
                }
                return result
            }
        }
    }

    func rows(of entity: NSEntityDescription, primaryKeys: [Int64]) throws -> [StoreRow] {
        guard !primaryKeys.isEmpty else { return [] }
        let plan = plans[Int32(entity.layout!.root.layout!.entityNumber)]!
        let select = "SELECT \(plan.selectList) FROM \(plan.table) WHERE \(plan.table).Z_PK"
        return try statementRead { db in
            if let range = Self.denseRange(primaryKeys) {
                // A batch of an unsorted fetch is a run of ascending keys with few gaps: a range
                // scan of the table, with no key list to build or search, then the gaps' rows
                // dropped by walking both lists in step.
                let statement = try db.cachedStatement(sql: "\(select) BETWEEN ? AND ?")
                statement.setUncheckedArguments([range.lowerBound, range.upperBound])
                let rows = try readRows(statement, plan: plan, values: true, db: db, expectedRows: primaryKeys.count)
                // Consecutive keys: every row of the range is one of them.
                if range.upperBound &- range.lowerBound == Int64(primaryKeys.count - 1) { return rows }
                var wanted = primaryKeys.makeIterator()
                var next = wanted.next()
                return rows.filter { row in
                    while let key = next, key < row.primaryKey { next = wanted.next() }
                    return row.primaryKey == next
                }
            }
            // All the keys travel as one JSON array parameter, so the query is one statement with
            // one bound value however many keys there are.
            let statement = try db.cachedStatement(sql: "\(select) IN (SELECT value FROM json_each(?))")
            statement.setUncheckedArguments([Self.jsonArray(primaryKeys)])
            return try readRows(statement, plan: plan, values: true, db: db, expectedRows: primaryKeys.count)
        }
    }

    func startReadingRows(of entity: NSEntityDescription, primaryKeys: [Int64]) -> PendingRows? {
        readAhead(of: entity, primaryKeys: primaryKeys)
    }

    func takeRows(_ pending: PendingRows) -> [StoreRow]? { rowsReadAhead(pending) }

    /// `first...last` when `keys` ascend and fill at least half of that range.
    private static func denseRange(_ keys: [Int64]) -> ClosedRange<Int64>? {
        // Keys come from the file: a hostile one may span all of Int64, whose width overflows.
        guard let first = keys.first, let last = keys.last, last >= first else { return nil }
        let (width, overflow) = last.subtractingReportingOverflow(first)
        guard !overflow, width / 2 < Int64(keys.count) else { return nil }
        for (previous, key) in zip(keys, keys.dropFirst()) where key <= previous { return nil }
        return first...last
    }

    func relatedRows(_ relationship: NSRelationshipDescription, ofPrimaryKeys keys: [Int64]) throws -> [(source: Int64, row: StoreRow)] {
        guard !keys.isEmpty else { return [] }
        let destination = relationship.destinationEntity!
        let plan = plans[Int32(destination.layout!.root.layout!.entityNumber)]!
        let table = plan.table
        let sql: String
        if let inverse = relationship.inverseRelationship, !inverse.isToMany, let column = inverse.columnName {
            let order = inverse.orderColumnName.map { "\(table).\($0), " } ?? ""
            sql = """
                SELECT \(plan.selectList), \(table).\(column) FROM \(table) \
                WHERE \(table).\(column) IN (SELECT value FROM json_each(?)) ORDER BY \(order)\(table).Z_PK
                """
        } else if let join = relationship.joinTable {
            let order = join.orderColumn.map { "J.\($0), " } ?? ""
            sql = """
                SELECT \(plan.selectList), J.\(join.sourceColumn) FROM \(join.name) J JOIN \(table) ON \(table).Z_PK = J.\(join.destinationColumn) \
                WHERE J.\(join.sourceColumn) IN (SELECT value FROM json_each(?)) ORDER BY \(order)\(table).Z_PK
                """
        } else {
            return []
        }
        return try statementRead { db in
            let statement = try db.makeStatement(sql: sql)
            statement.setUncheckedArguments([Self.jsonArray(keys)])
            var sources: [Int64] = []
            let rows = try readRows(statement, plan: plan, values: true, db: db) { handle in
                sources.append(sqlite3_column_int64(handle, plan.columnCount))
            }
            return Array(zip(sources, rows))
        }
    }

    /// `[1,2,3]`, written digit by digit: mapping every key to a `String` and joining them cost
    /// more than the query that reads the rows.
    private static func jsonArray(_ keys: [Int64]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(keys.count * 8 + 2)
        var digits: [UInt8] = []
        for (index, key) in keys.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if key < 0 { bytes.append(UInt8(ascii: "-")) }
            var rest = key.magnitude
            digits.removeAll(keepingCapacity: true)
            repeat {
                digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: digits.reversed())
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The rows `statement` selects; `expectedRows` is room to reserve when the caller knows
    /// about how many there are (a batch's keys), saving the array's regrowth. With `chunks`, every
    /// `chunks.size` rows go to `chunks.handOver` as they are read, and only the last few are
    /// returned.
    func readRows(
        _ statement: Statement, plan: SQLiteHierarchyPlan, values: Bool, db: Database, expectedRows: Int = 0,
        chunks: RowChunks? = nil, onRow: ((OpaquePointer) -> Void)? = nil
    ) throws -> [StoreRow] {
        // Reset however the read ends (a damaged row throws mid-step): a statement left stepping
        // keeps its read snapshot, and the connection goes back to the pool holding it, seeing no
        // later save and keeping checkpoints from the end of the log.
        defer { sqlite3_reset(statement.sqliteStatement) }
        var reader = SQLiteRowReader(statement, plan: plan, values: values, db: db, store: self, onRow: onRow)
        var rows: [StoreRow] = []
        rows.reserveCapacity(chunks?.size ?? expectedRows)
        guard let chunks else {
            _ = try reader.read(into: &rows, limit: .max)
            return rows
        }
        while try !reader.read(into: &rows, limit: chunks.size) {
            chunks.handOver(rows)
            rows = []
            rows.reserveCapacity(chunks.size)
        }
        return rows
    }

    /// Reads a file of `.<StoreName>_SUPPORT/_EXTERNAL_DATA` beside the store (docs/sqlite-format.md §9).
    /// The folder is found when a row names a file, not per read: batched iteration reads many
    /// small runs of rows, and building the folder's URL cost more than a row.
    var externalDataReader: (String) -> Data? {
        let url = self.fileURL!
        return { name in
            try? Data(contentsOf: SQLiteExternalData.folder(forStoreAt: url).appendingPathComponent(name))
        }
    }

    // MARK: Writing

    func save(_ body: (any StoreWriter) throws -> Void) throws {
        guard !isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store at \(url!.path) was opened read-only.")
        }
        let external = storesExternalData ? SQLiteExternalFiles(storeURL: fileURL!) : nil
        do {
            try pool!.write { db in
                let writer = SQLiteWriter(store: self, db: db)
                writer.external = external
                derivedReports.begin()
                defer { _ = derivedReports.end() }
                try body(writer)
                try writer.finish()
                if metadataChanged {
                    try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", arguments: [try StoreMetadata.encode(metadata)])
                    metadataChanged = false
                }
            }
            external?.commit()
        } catch let error as DatabaseError {
            external?.rollback()
            throw SQLiteFileCheck.operationError(error, path: url!.path, timeout: Self.timeout(in: options))
        } catch {
            external?.rollback()
            throw error
        }
        didWrite()
    }

    /// Replaces the metadata on the writer queue, so that a concurrent save sees either the old or
    /// the new metadata, never half of it; written at the next save.
    func replaceMetadata(_ metadata: [String: Any]) {
        nonisolated(unsafe) let metadata = metadata
        pool?.writeWithoutTransaction { _ in
            self.metadata = metadata
            self.metadataChanged = true
        }
    }

    func reservePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        try pool!.write { db in
            let writer = SQLiteWriter(store: self, db: db)
            let first = try writer.allocatePrimaryKeys(for: entity, count: count)
            try writer.finish()
            return first
        }
    }

    // MARK: Persistent history (SQLiteStore+History.swift)

    var tracksPersistentHistory: Bool { historyTracked }
    func fetchHistory(
        _ boundary: HistoryBoundary, withChanges: Bool, change: (Int, HistoryChangeRecord) -> Void
    ) throws -> [HistoryTransactionRecord] {
        try readHistory(boundary, withChanges: withChanges, change: change)
    }
    func deleteHistory(_ boundary: HistoryBoundary) throws -> Int { try removeHistory(boundary) }
    func historyRange() throws -> ClosedRange<Int64>? { try keptHistoryRange() }
    func lastHistoryNumber() throws -> Int64 { try lastHistoryTransactionNumber() }

    // MARK: Batch requests (SQLiteStore+BatchUpdate.swift, +BatchDelete.swift, +BatchInsert.swift)

    func executeBatchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome { try runBatchUpdate(request) }
    func executeBatchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome { try runBatchDelete(request) }
    func executeBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome { try runBatchInsert(request) }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try SQLiteFileCheck.readMetadata(atPath: url.path).metadata
    }
}
