/// A persistent store: where a coordinator keeps objects. Core Data's SQLite and in-memory stores
/// are subclasses; create stores through `NSPersistentStoreCoordinator.addPersistentStore`.
open class NSPersistentStore: NSObject, @unchecked Sendable {
    // @unchecked Sendable: contexts call a store directly, from their own queues, not through the
    // coordinator's lock, so the store's own state must be safe on its own:
    // - `url`, `identifier`, `isReadOnly` and `configurationName` are set while the coordinator
    //   adds the store, under the coordinator's lock and before any context can reach the store;
    //   after that only an app that sets them itself changes them (Apple's are settable too);
    // - `metadata`, which saves and `setMetadata(_:for:)` replace while contexts read it, is
    //   kept under a lock of its own;
    // - each subclass serializes its data: the SQLite store through GRDB's pool (one writer,
    //   readers on WAL snapshots), the in-memory store under its lock.

    /// Store types by name, as Core Data spells them.
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        /// A type by its name.
        ///
        /// - Parameter rawValue: The type name (`NSSQLiteStoreType`…).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The SQLite store, in Apple's on-disk format.
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// A store that keeps everything in memory.
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        /// Apple's binary store; not available in OpenCoreData.
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }

    /// The coordinator that owns the store.
    public internal(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?
    /// The configuration whose entities the store holds; nil for the default (all entities).
    public let configurationName: String
    /// The options the store was added with.
    public let options: [AnyHashable: Any]?
    /// The store's file, or a placeholder URL for an in-memory store.
    open var url: URL?
    /// The store's unique identifier (`NSStoreUUID`): the host part of its object-ID URIs.
    open var identifier: String!
    /// Whether the store refuses saves.
    open var isReadOnly: Bool = false
    /// The store's metadata: `NSStoreType`, `NSStoreUUID`, version hashes and the app's own keys.
    open var metadata: [String: Any]! {
        get { metadataStorage.withLock { $0 } }
        set { metadataStorage.withLock { $0 = newValue ?? [:] } }
    }
    private let metadataStorage = Locked<[String: Any]>([:])

    /// The store's type name (`NSSQLiteStoreType`…).
    open var type: String { "" }

    /// Creates a store for `coordinator`; `addPersistentStore` is the way to get one.
    ///
    /// - Parameters:
    ///   - root: The coordinator that will own the store.
    ///   - name: The model configuration whose entities the store holds; nil for all.
    ///   - url: The store's URL.
    ///   - options: The options the store is added with.
    public required init(
        persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
        at url: URL, options: [AnyHashable: Any]? = nil
    ) {
        self.persistentStoreCoordinator = root
        self.configurationName = name ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.options = options
        self.url = url
        super.init()
        identity = StoreIdentity(self)
    }

    /// What this store's object IDs hold instead of a weak reference each.
    @exclusivity(unchecked) private(set) var identity: StoreIdentity!

    /// Replaces the store's metadata (through `NSPersistentStoreCoordinator.setMetadata`).
    func replaceMetadata(_ metadata: [String: Any]) { self.metadata = metadata }

    /// Removes or empties the store at `url` for `destroyPersistentStore`; a store with nothing
    /// on disk has nothing to do.
    class func destroyStore(at url: URL, options: [AnyHashable: Any]?) throws {}

    /// Copies the store at `source` over `destination` for `replacePersistentStore`.
    class func replaceStore(at destination: URL, withStoreFrom source: URL) throws {
        throw CoreDataError.make(
            NSPersistentStoreOperationError, "Stores of this type can't be replaced from a file.", userInfo: [NSFilePathErrorKey: destination.path])
    }

    /// Deletes the files of a store this process just made at `url` and could not open.
    class func discardStoreFiles(at url: URL) {}
    /// Whether a coordinator refuses to add a second store at this store's URL (a file, a
    /// database): true for stores whose URL names where the data lives.
    class var holdsItsURLAlone: Bool { false }

    /// Does the table copies a deferred lightweight migration left; nothing for a store without.
    func finishDeferredMigration() throws {}

    /// Puts the closed store at `source`, a migrated copy, in the place of the closed store at
    /// `destination`, in one step that a crash cannot leave half done.
    class func installMigratedStore(from source: URL, at destination: URL) throws {
        throw CoreDataError.make(
            NSPersistentStoreOperationError, "Stores of this type can't be migrated into a new file.", userInfo: [NSFilePathErrorKey: destination.path])
    }

    /// Copies this open store into a new store file at `destination`, with a store UUID of its
    /// own, for `migratePersistentStore`.
    func copyForMigration(to destination: URL) throws {
        throw CoreDataError.make(
            NSPersistentStoreOperationError, "Stores of type '\(type)' can't be migrated to a file yet.", userInfo: [NSFilePathErrorKey: destination.path])
    }

    /// Called after the store is added to a coordinator.
    ///
    /// - Parameter coordinator: The coordinator.
    open func didAdd(to coordinator: NSPersistentStoreCoordinator) {}
    /// Called before the store is removed from a coordinator.
    ///
    /// - Parameter coordinator: The coordinator.
    open func willRemove(from coordinator: NSPersistentStoreCoordinator?) {}

    /// Reads metadata without opening the store through a coordinator.
    ///
    /// - Parameter url: The store's file.
    /// - Returns: The metadata.
    /// - Throws: `NSPersistentStoreInvalidTypeError` from this base class; a store type's own
    ///   errors from a subclass (`NSFileReadCorruptFileError` for a file that is not a SQLite store).
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown store type.")
    }

    // MARK: What the coordinator asks of a store. Subclasses implement these.

    /// The entities this store holds.
    var entities: [NSEntityDescription] {
        persistentStoreCoordinator?.managedObjectModel.entities(forConfigurationName: configurationName) ?? []
    }

    func load(model: NSManagedObjectModel) throws { }
    func close() {}
    func fetchRows(_ query: StoreQuery) throws -> [StoreRow] { throw unsupported("fetch") }
    /// The rows of `query` given to `body`, in order, a chunk at a time, on the calling thread, so
    /// that the caller turns rows into objects while the store reads the next ones. By default one
    /// chunk holds them all.
    func fetchRows(_ query: StoreQuery, inChunks body: (inout [StoreRow]) throws -> Void) throws {
        var rows = try fetchRows(query)
        try body(&rows)
    }
    /// The rows of a sorted `query` in the order the store read them, with the positions that
    /// put them in the query's order (`sorted[i] = rows[order[i]]`); nil (the default) when the
    /// store reads them in order anyway, and the caller reads them with `fetchRows`.
    ///
    /// A context makes the objects in reading order, then orders them: a store that sorts in
    /// memory reads in key order, so objects are made, registered and finally freed in the order
    /// of their keys and of their memory, not in the scattered order a sort puts them in.
    func fetchRowsInReadingOrder(_ query: StoreQuery) throws -> (rows: [StoreRow], order: [Int32]?)? { nil }
    func countRows(_ query: StoreQuery) throws -> Int { throw unsupported("count") }

    /// The rows of `query` for an asynchronous fetch: `meter` counts them as they are read, and
    /// with `chunks` they go to `chunks.handOver` as they come (the last few are returned).
    /// This default reads them in one go, looking at `monitor` before and after; a store that can
    /// stop a running read does so once `monitor` is cancelled (SQLite's interrupts its statement).
    ///
    /// - Throws: `StoreReadCancelled` once `monitor` is cancelled; the read's own errors.
    func fetchRows(_ query: StoreQuery, monitor: StoreReadMonitor, meter: RowMeter, chunks: RowChunks? = nil) throws -> [StoreRow] {
        try monitor.checkCancellation()
        let rows = try fetchRows(query)
        meter.rowsRead(rows.count)
        try monitor.checkCancellation()
        return rows
    }
    /// The IDs of the rows `query` selects, for `.managedObjectIDResultType`. Stores that can
    /// make them while reading override this.
    func fetchObjectIDs(_ query: StoreQuery) throws -> [NSManagedObjectID] {
        var query = query
        query.includesPropertyValues = false
        var lookup = EntityLookup(store: self)
        return try fetchRows(query).map { row in
            NSManagedObjectID(entity: lookup.entity(row.entityNumber), store: self, primaryKey: row.primaryKey)
        }
    }
    /// The entity number and key of each row `query` selects, in its order: what a batched
    /// result (`NSManagedObjectContext.batchedFetch`) keeps of a row until its batch is read.
    /// Stores that can read keys without rows override this.
    func fetchReferences(_ query: StoreQuery) throws -> [ObjectReference] {
        var query = query
        query.includesPropertyValues = false
        return try fetchRows(query).map { ObjectReference(entityNumber: $0.entityNumber, primaryKey: $0.primaryKey) }
    }
    func row(of entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? { throw unsupported("fault") }
    func relatedReferences(
        _ relationship: NSRelationshipDescription, ofPrimaryKey primaryKey: Int64
    ) throws -> [ObjectReference] { throw unsupported("relationship fault") }
    /// The rows of `entity`'s hierarchy with these primary keys (missing ones left out), for
    /// batch faulting and prefetching. Stores that can answer in one query override this.
    func rows(of entity: NSEntityDescription, primaryKeys: [Int64]) throws -> [StoreRow] {
        try primaryKeys.compactMap { try row(of: entity, primaryKey: $0) }
    }
    /// Starts reading `rows(of:primaryKeys:)` on another thread, for a batch the context is about
    /// to need; nil (the default) where the store cannot.
    func startReadingRows(of entity: NSEntityDescription, primaryKeys: [Int64]) -> PendingRows? { nil }
    /// The rows a `startReadingRows` read, or nil when the caller must read them again.
    func takeRows(_ pending: PendingRows) -> [StoreRow]? { nil }
    /// The destination rows of the to-many `relationship` of each source key, in each source's
    /// order, for prefetching. Stores that can answer in one query override this.
    func relatedRows(_ relationship: NSRelationshipDescription, ofPrimaryKeys keys: [Int64]) throws -> [(source: Int64, row: StoreRow)] {
        var result: [(source: Int64, row: StoreRow)] = []
        for key in keys {
            for reference in try relatedReferences(relationship, ofPrimaryKey: key) {
                guard let destination = entity(number: reference.entityNumber),
                    let row = try row(of: destination, primaryKey: reference.primaryKey)
                else { continue }
                result.append((key, row))
            }
        }
        return result
    }
    /// The dictionaries of a fetch with `.dictionaryResultType`, from the stored values.
    func fetchDictionaries(_ query: StoreQuery, _ fetch: DictionaryFetch) throws -> [[String: Any]] {
        throw unsupported("dictionary results")
    }
    func save(_ body: (any StoreWriter) throws -> Void) throws { throw unsupported("save") }
    func reservePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        throw unsupported("permanent IDs")
    }

    // MARK: Persistent history (stores added with NSPersistentHistoryTrackingKey)

    /// Whether the store records persistent history with every write.
    var tracksPersistentHistory: Bool { false }
    /// The transactions `boundary` selects, oldest first. With `withChanges`, their changes too,
    /// each handed to `change` as it is read with the position of its transaction in the result,
    /// a transaction's changes in key order: 100,000 changes kept in an array of records on the
    /// way cost their reader more than SQLite took to read them.
    func fetchHistory(
        _ boundary: HistoryBoundary, withChanges: Bool, change: (Int, HistoryChangeRecord) -> Void
    ) throws -> [HistoryTransactionRecord] {
        throw Self.historyNotTracked()
    }
    /// Deletes the transactions `boundary` selects with their changes; returns how many.
    func deleteHistory(_ boundary: HistoryBoundary) throws -> Int { throw Self.historyNotTracked() }
    /// The numbers of the oldest and the newest transaction kept; nil when there is none.
    func historyRange() throws -> ClosedRange<Int64>? { throw Self.historyNotTracked() }
    /// The highest transaction number the store has used, kept or deleted since (0 for none).
    func lastHistoryNumber() throws -> Int64 { throw Self.historyNotTracked() }

    static func historyNotTracked() -> NSError {
        CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, "No history tracking option detected on store.")
    }

    /// Whether `options` turn persistent history on: a true Bool or number, or a dictionary (the
    /// form that carries history migration options).
    static func historyTracking(in options: [AnyHashable: Any]?) -> Bool {
        switch options?[NSPersistentHistoryTrackingKey] {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        case is [AnyHashable: Any], is NSDictionary: true
        default: false
        }
    }

    // MARK: Remote change notifications

    /// Whether `options` ask for `NSPersistentStoreRemoteChange` notifications.
    static func postsRemoteChanges(in options: [AnyHashable: Any]?) -> Bool {
        flag(NSPersistentStoreRemoteChangeNotificationPostOptionKey, in: options)
    }

    /// Whether an option is on (a Bool or an NSNumber).
    static func flag(_ key: String, in options: [AnyHashable: Any]?) -> Bool {
        switch options?[key] {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        default: false
        }
    }

    /// Posts `NSPersistentStoreRemoteChange` for a write to the store by anyone (this coordinator,
    /// another one, another process), on the caller's background queue, as Core Data does: the
    /// object is the coordinator; the user info holds the store's UUID and URL, and its current
    /// history token when it keeps history: `historyNumber` when the change came with it, else
    /// the store's last.
    func announceRemoteChange(historyNumber: Int64? = nil) {
        guard let coordinator = persistentStoreCoordinator else { return }
        var userInfo: [AnyHashable: Any] = [NSStoreUUIDKey: identifier ?? ""]
        if let url { userInfo[NSPersistentStoreURLKey] = url }
        if tracksPersistentHistory, let number = historyNumber ?? (try? lastHistoryNumber()) {
            userInfo[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(transactionNumber: number, storeID: identifier)
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: userInfo)
    }

    // MARK: Batch requests. Core Data runs them only in its SQLite store; the others refuse them.

    /// Whether the store runs `NSBatchUpdateRequest`, `NSBatchDeleteRequest` and
    /// `NSBatchInsertRequest`, checked for every target store before any of them writes.
    var supportsBatchRequests: Bool { false }
    func executeBatchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome { throw unsupported("batch update requests") }
    func executeBatchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome { throw unsupported("batch delete requests") }
    func executeBatchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome { throw unsupported("batch insert requests") }

    private func unsupported(_ what: String) -> NSError {
        CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "The store of type '\(type)' does not support \(what).")
    }

    /// The entity with store number `number` in this store's model.
    func entity(number: Int32) -> NSEntityDescription? {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return nil }
        let index = Int(number) - 1
        guard index >= 0, index < model.entitiesInStoreOrder.count else { return nil }
        return model.entitiesInStoreOrder[index]
    }
}

/// The SQLite store type name.
public let NSSQLiteStoreType = "SQLite"
/// The in-memory store type name.
public let NSInMemoryStoreType = "InMemory"
/// Apple's binary store type name; not supported on Linux.
public let NSBinaryStoreType = "Binary"
/// Apple's XML store type name; not supported on Linux.
public let NSXMLStoreType = "XML"

/// Metadata key: the store's type.
public let NSStoreTypeKey = "NSStoreType"
/// Metadata key: the store's UUID.
public let NSStoreUUIDKey = "NSStoreUUID"
/// Metadata key: the entity version hashes the store was written with.
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// Metadata key: the model's version identifiers.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
/// Option: open the store read-only.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Option: migrate the store when the model's entity hashes differ from the store's: find the
/// model it was written with and a mapping to this one, then migrate (a Bool).
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option: with `NSMigratePersistentStoresAutomaticallyOption`, infer the mapping model when no
/// compiled one is found; the migration then runs in place, in SQL (a Bool).
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Option (a Bool) and metadata key: a lightweight migration leaves the columns a table loses in
/// place, unread, instead of copying the table now; `finishDeferredLightweightMigration()` does
/// the copies later. The metadata holds the key while copies are pending.
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"
/// Option: an `NSStagedMigrationManager` whose stages take the store from the version it was
/// written with to the coordinator's model, one stage after the other.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"
/// Option: open the store without comparing its entity version hashes with the model's (a
/// Bool): the app takes responsibility for the two agreeing, as Core Data's option says.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Option: SQLite pragmas, as a dictionary of name to value.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option: how long, in seconds, to wait for a store that another connection or process is
/// writing before giving up with `NSPersistentStoreTimeoutError` (240 by default, the default of
/// `NSPersistentStoreDescription.timeout`).
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// Option: track persistent history: every save and batch request records a transaction with
/// its changes, which `NSPersistentHistoryChangeRequest` reads. A Bool (or an `NSNumber`).
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"

/// A fetch as a store runs it: everything about the request except the context.
struct StoreQuery {
    var entity: NSEntityDescription
    var predicate: NSPredicate?
    var sortDescriptors: [NSSortDescriptor]
    var fetchLimit: Int
    var fetchOffset: Int
    var includesSubentities: Bool
    /// Whether the rows' values are needed, or only their identity.
    var includesPropertyValues: Bool
}

/// A row as a store returns it: identity, version and values in slot order (to-ones as
/// references, to-many as `.unloaded`).
struct StoreRow {
    var entityNumber: Int32
    var primaryKey: Int64
    var version: Int64
    var values: SlotRow?
}

/// The write half of a save, given to the context inside one store transaction: if the body throws,
/// nothing it wrote stays.
protocol StoreWriter {
    /// Reserves `count` primary keys for `entity`'s hierarchy and returns the first.
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64
    /// Inserts a row with version 1.
    func insert(entity: NSEntityDescription, primaryKey: Int64, values: RowValues) throws
    /// Updates a row whose version must still be `expectedVersion`; returns false on a conflict.
    func update(
        entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64, values: RowValues
    ) throws -> Bool
    /// Deletes a row whose version must still be `expectedVersion`; returns false on a conflict.
    func delete(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64) throws -> Bool
    /// The row as it is now inside the transaction, for resolving a conflict.
    func currentRow(entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow?
    /// The key of a row of `entity`'s hierarchy, other than `excluding`, whose `slots` hold the
    /// same values as `values` (a uniqueness constraint's columns).
    func rowMatching(entity: NSEntityDescription, slots: [Int], values: RowValues, excluding: Int64) throws -> Int64?
    /// Records a row's position in an ordered to-many (its `Z_FOK_` column).
    func setOrder(entity: NSEntityDescription, column: String, primaryKey: Int64, position: Int64) throws
    /// Adds or removes a many-to-many pair.
    func insertJoin(_ table: JoinTable, source: Int64, destination: Int64) throws
    func deleteJoin(_ table: JoinTable, source: Int64, destination: Int64) throws
    /// Names who writes, for the transaction's persistent history: a store that tracks history
    /// records it with the changes, and calls `recorded` with the transaction's number once
    /// written; others ignore it.
    func describeTransaction(author: String?, contextName: String?, recorded: @escaping (Int64) -> Void)
}

extension StoreWriter {
    func describeTransaction(author: String?, contextName: String?, recorded: @escaping (Int64) -> Void) {}
}

/// The stored values of one row being written, resolved to what a store keeps: attribute slots and
/// to-one references (the destination's primary key and entity number).
struct RowValues {
    var slots: SlotRow
    /// For an update, the slots whose values changed, when the store records them (persistent
    /// history); nil when not known.
    var changedSlots: [Int]? = nil
}
