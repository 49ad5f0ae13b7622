import Logging
import Synchronization

/// Connects contexts to persistent stores: it owns the model and the stores, and mediates between
/// them. A context reaches a store only through its coordinator, which picks the stores a fetch
/// reads (those whose configuration holds the entity), hands each the part of the request it can
/// run, and writes a save across several stores as one: every store's share or none.
///
/// Stores serialize their own data (the SQLite store through its pool: one writer, readers on
/// snapshots), so contexts on different queues read at once; the coordinator's own lock guards
/// only its list of stores. `perform(_:)` and `performAndWait(_:)` serialize the blocks given to
/// them, not the contexts' work.
///
/// `Sendable`: contexts on different queues share one coordinator.
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `stores` is guarded by `lock`; each store guards its own state (GRDB's
    // pool, or the in-memory store's lock); the model is frozen (immutable) from `init` on.

    /// The model of every object the coordinator's stores hold.
    public let managedObjectModel: NSManagedObjectModel
    /// A name for debugging.
    open var name: String?

    /// How much SQL the stores added from now on log: 0 (nothing) to 4 (every statement with its
    /// bound values and query plan); see ``SQLDebug``. Starts at the level of the process's
    /// `-com.apple.CoreData.SQLDebug` argument or `OPENCOREDATA_SQL_DEBUG` variable.
    ///
    /// Not in Apple's API, where the level is a process-wide default: here each coordinator may
    /// have its own, which a test or a server with several stores needs.
    public var sqlDebugLevel: Int {
        get { logging.withLock { $0.level } }
        set { logging.withLock { $0.level = newValue } }
    }

    /// Where the stores added from now on send their SQL log (swift-log's `Logger`, label
    /// `com.apple.CoreData.SQLDebug` by default). The library never bootstraps the logging
    /// system: an app that wants the messages elsewhere bootstraps it or sets its own logger.
    public var logger: Logger {
        get { logging.withLock { $0.logger } }
        set { logging.withLock { $0.logger = newValue } }
    }

    private let logging = Locked(StoreLogging(level: SQLDebug.processLevel, logger: SQLDebug.defaultLogger))

    /// Whether migrations of this coordinator's stores log their steps; see ``MigrationDebug``.
    /// Starts at the level of the process's `-com.apple.CoreData.MigrationDebug` argument or
    /// `OPENCOREDATA_MIGRATION_DEBUG` variable. Not in Apple's API (a process-wide default there).
    public var migrationDebugLevel: Int {
        get { migrationDebug.withLock { $0 } }
        set { migrationDebug.withLock { $0 = newValue } }
    }

    private let migrationDebug = Locked(MigrationDebug.processLevel)

    /// The log a migration of this coordinator's stores writes to.
    package var migrationLog: MigrationLog {
        get {
            let logging = storeLogging
            return MigrationLog(level: migrationDebugLevel, sqlLevel: logging.level, logger: logging.logger)
        }
        // A migration's own coordinators log as the one that started it.
        set {
            migrationDebugLevel = newValue.level
            sqlDebugLevel = newValue.sqlLevel
            logger = newValue.logger
        }
    }

    /// The logging a store takes when it opens.
    package var storeLogging: StoreLogging { logging.withLock { $0 } }

    let lock = NSRecursiveLock()
    /// Held while a `perform`/`performAndWait` block runs; recursive, so a block may nest another.
    let performLock = NSRecursiveLock()
    /// Where `perform` blocks wait their turn, in order.
    let performQueue = DispatchQueue(label: "OpenCoreData.NSPersistentStoreCoordinator.perform")
    private var stores: [NSPersistentStore] = []
    /// Stores removed from the coordinator, kept for its lifetime: objects of contexts on this
    /// coordinator refer to their store without retaining it (a strong reference per object
    /// would cost every fetched object two atomic operations on one shared count), so a removed
    /// store must outlive them. Closed, a retired store holds no file or connection.
    private var retiredStores: [NSPersistentStore] = []

    /// The identity of every store the coordinator holds or held, by the store's address: what a
    /// context leaves to its objects when it goes (`ContextToken.retire(_:)`). A lock of its own,
    /// held for nothing but these: a context may go while `lock` is held on its thread.
    private let identities = Mutex<[UnsafeRawPointer: StoreIdentity]>([:])

    var storeIdentitiesByAddress: [UnsafeRawPointer: StoreIdentity] { identities.withLock { $0 } }

    /// An error from freezing the model, reported when the first store is added.
    private let modelError: NSError?

    /// Creates a coordinator for `model`; the model may no longer be edited afterwards.
    ///
    /// `required`, so that a class method can create a coordinator of its own class,
    /// `Self.init(managedObjectModel:)`, as code written for Apple platforms does (there the
    /// initializer comes from Objective-C, which Swift exempts from the rule).
    ///
    /// - Parameter model: The model of every object the coordinator's stores will hold.
    public required init(managedObjectModel model: NSManagedObjectModel) {
        self.managedObjectModel = model
        var error: NSError?
        do { try model.freeze() } catch let e as NSError { error = e }
        self.modelError = error
        super.init()
        NSManagedObjectModel.noteInUse(model)
    }

    /// The stores added so far.
    open var persistentStores: [NSPersistentStore] {
        lock.lock()
        defer { lock.unlock() }
        return stores
    }

    /// Store types by name, as `registerStoreClass` knows them.
    static let registeredTypes = Locked<[String: NSPersistentStore.Type]>(BuiltInStores.types)

    /// The registered store types, by name: the built-in types and every registered one. Each
    /// value holds the address of the store's class as a 64-bit integer (objCType `Q`, read with
    /// `getValue(_:)`), where Apple's holds the class unretained: Linux's `NSValue` takes no
    /// pointer or object encodings.
    public class var registeredStoreTypes: [String: NSValue] {
        registeredTypes.withLock { types in
            types.mapValues { storeClass in
                var address = UInt64(UInt(bitPattern: ObjectIdentifier(storeClass)))
                return NSValue(bytes: &address, objCType: "Q")
            }
        }
    }

    /// Registers a store class under a type name.
    ///
    /// - Parameters:
    ///   - storeClass: A subclass of `NSPersistentStore`, or nil to forget the type.
    ///   - storeType: The type name `addPersistentStore` will know it by.
    public class func registerStoreClass(_ storeClass: AnyClass?, type storeType: NSPersistentStore.StoreType) {
        registeredTypes.withLock { $0[storeType.rawValue] = storeClass as? NSPersistentStore.Type }
    }

    /// Registers a store class under a type name: the spelling most existing code uses.
    ///
    /// - Parameters:
    ///   - storeClass: A subclass of `NSPersistentStore`, or nil to forget the type.
    ///   - storeType: The type name `addPersistentStore(ofType:…)` will know it by.
    public class func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
        registerStoreClass(storeClass, type: NSPersistentStore.StoreType(rawValue: storeType))
    }

    /// Adds a store of `type` at `url` (a file for SQLite; any URL for in-memory) and opens it.
    ///
    /// - Throws: `NSPersistentStoreIncompatibleVersionHashError` (134100) when the store was written
    ///   with another model, `NSPersistentStoreInvalidTypeError` for an unknown type,
    ///   `NSFileReadCorruptFileError`/`NSPersistentStoreOpenError`/`NSSQLiteError` when the file is
    ///   not a usable store. A failed open leaves the file untouched.
    ///
    /// - Parameters:
    ///   - type: The store's type (`.sqlite`, `.inMemory` or a registered one).
    ///   - configuration: The model configuration whose entities the store holds; nil for all.
    ///   - storeURL: The store's file.
    ///   - options: Store options (`NSReadOnlyPersistentStoreOption`, `NSSQLitePragmasOption`…).
    /// - Returns: The store, added and open.
    @discardableResult
    open func addPersistentStore(
        type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// The older spelling of `addPersistentStore(type:configuration:at:options:)`.
    ///
    /// - Parameters:
    ///   - storeType: The store's type name (`NSSQLiteStoreType`…).
    ///   - configuration: The model configuration whose entities the store holds; nil for all.
    ///   - storeURL: The store's file; nil for an in-memory store.
    ///   - options: Store options.
    /// - Returns: The store, added and open.
    /// - Throws: As `addPersistentStore(type:configuration:at:options:)`; observers get
    ///   `.NSPersistentStoreCoordinatorStoresDidChange` only when it succeeds.
    @discardableResult
    open func addPersistentStore(
        ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        let store = try addStore(ofType: storeType, configurationName: configuration, at: storeURL, options: options)
        postStoresDidChange([NSAddedPersistentStoresKey: [store]])
        return store
    }

    /// Adds and opens a store without telling observers, for `addPersistentStore` and for a
    /// migration, which posts one notification for the whole exchange.
    func addStore(
        ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
        options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore {
        if let modelError { throw modelError }
        let storeClass = NSPersistentStoreCoordinator.registeredTypes.withLock { $0[storeType] }
        guard let storeClass else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "Unsupported store type '\(storeType)'.",
                userInfo: [NSStoreTypeKey: storeType])
        }
        if let configuration, managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw CoreDataError.make(NSCoreDataError, "The model has no configuration named '\(configuration)'.")
        }
        let url = storeURL ?? URL(string: "memory://\(UUID().uuidString)")!
        // A staged migration runs before the store opens here, with coordinators of its own (a
        // custom stage's handlers use a container), so outside this coordinator's lock.
        if let manager = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager, storeURL != nil,
            NSPersistentStore.flag(NSMigratePersistentStoresAutomaticallyOption, in: options)
        {
            try StagedMigrationRunner(
                manager: manager, storeType: storeType, configuration: configuration, url: url, options: options ?? [:],
                destination: managedObjectModel, log: migrationLog
            ).run()
        }
        lock.lock()
        defer { lock.unlock() }
        guard let openable = storeClass as? any OpenableStore.Type else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "The class registered for store type '\(storeType)' is not a store OpenCoreData can open.",
                userInfo: [NSStoreTypeKey: storeType])
        }
        if openable.holdsItsURLAlone, stores.contains(where: { $0.url?.standardizedFileURL == url.standardizedFileURL }) {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "The store at \(url.path) is already added to this coordinator.")
        }
        var store = openable.init(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
        do {
            try store.load(model: managedObjectModel)
        } catch let needed as MappingModelMigrationNeeded {
            // The store was written with another version and a compiled mapping model maps it:
            // migrate with it (into a new file put in place atomically), then open the result.
            store.identity.detach()
            try MappingModelMigrationRunner(
                storeClass: storeClass, storeType: storeType, url: url, options: options ?? [:], destination: managedObjectModel,
                log: migrationLog
            ).run(needed)
            store = openable.init(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
            do {
                try store.load(model: managedObjectModel)
            } catch {
                store.identity.detach()
                throw error
            }
        } catch {
            store.identity.detach()
            throw error
        }
        stores.append(store)
        identities.withLock { $0[UnsafeRawPointer(Unmanaged<NSPersistentStore>.passUnretained(store).toOpaque())] = store.identity }
        store.didAdd(to: self)
        return store
    }

    /// Removes `store` from the coordinator and closes it; observers hear of it through
    /// `.NSPersistentStoreCoordinatorWillRemoveStore` before and
    /// `.NSPersistentStoreCoordinatorStoresDidChange` after.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Throws: `NSPersistentStoreOperationError` when the store is not in this coordinator.
    open func remove(_ store: NSPersistentStore) throws {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store is not in this coordinator.")
        }
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
        try removeStore(store)
        postStoresDidChange([NSRemovedPersistentStoresKey: [store]])
    }

    /// Removes and closes `store` without telling observers.
    func removeStore(_ store: NSPersistentStore) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let index = stores.firstIndex(where: { $0 === store }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store is not in this coordinator.")
        }
        store.willRemove(from: self)
        (store as? any OpenableStore)?.close()
        store.identity.detach()
        stores.remove(at: index)
        retiredStores.append(store)
    }

    /// Posts `.NSPersistentStoreCoordinatorStoresDidChange` with `userInfo`, outside the lock, so
    /// that an observer may call the coordinator.
    func postStoresDidChange(_ userInfo: [String: Any]) {
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: userInfo)
    }

    deinit {
        for store in stores { store.identity.detach() }
    }

    /// The store at `url`, if the coordinator has it.
    ///
    /// - Parameter url: A store's URL.
    /// - Returns: The store, or nil.
    open func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The metadata of `store`.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: Its metadata, with the changes `setMetadata(_:for:)` made since the last save.
    open func metadata(for store: NSPersistentStore) -> [String: Any] { store.metadata ?? [:] }

    /// Replaces the metadata of `store`; written at the next save.
    ///
    /// - Parameters:
    ///   - metadata: The new metadata; its `NSStoreUUID` and `NSStoreType` are the store's whatever
    ///     it says.
    ///   - store: A store of this coordinator.
    open func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        lock.lock()
        defer { lock.unlock() }
        var merged = metadata ?? [:]
        merged[NSStoreUUIDKey] = store.identifier
        merged[NSStoreTypeKey] = store.type
        if let openable = store as? any OpenableStore { openable.replaceMetadata(merged) } else { store.metadata = merged }
    }

    /// The metadata of the store at `url`, read without adding it.
    ///
    /// - Parameters:
    ///   - type: The store's type, whose registered class reads the metadata (SQLite stores have
    ///     metadata on disk; in-memory ones none).
    ///   - url: The store's file.
    ///   - options: Store options (unused).
    /// - Returns: The metadata (`NSStoreType`, `NSStoreUUID`, the version hashes…).
    /// - Throws: `NSPersistentStoreInvalidTypeError` for another type, `NSFileReadCorruptFileError`
    ///   when the file is not a store, `NSFileReadNoPermissionError` when it cannot be read.
    open class func metadataForPersistentStore(
        type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// The older spelling of `metadataForPersistentStore(type:at:options:)`.
    ///
    /// - Parameters:
    ///   - storeType: The store's type name.
    ///   - url: The store's file.
    ///   - options: Store options (unused).
    /// - Returns: The metadata.
    /// - Throws: As `metadataForPersistentStore(type:at:options:)`.
    open class func metadataForPersistentStore(
        ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String: Any] {
        // The registered class answers; one that keeps nothing to read (in memory) throws.
        guard let storeClass = registeredTypes.withLock({ $0[storeType] }) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "No metadata for store type '\(storeType)'.")
        }
        return try storeClass.metadataForPersistentStore(with: url)
    }

    /// The object ID named by a URI from `NSManagedObjectID.uriRepresentation()`; nil if no store
    /// or entity of this coordinator matches.
    ///
    /// - Parameter url: A URI such as `x-coredata://<store UUID>/<Entity>/p<key>`.
    /// - Returns: The object ID, or nil.
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host else { return nil }
        let parts = url.path.split(separator: "/")
        guard parts.count == 2, parts[1].first == "p", let key = Int64(parts[1].dropFirst()), key > 0,
            let entity = managedObjectModel.entitiesByName[String(parts[0])],
            let store = persistentStores.first(where: { $0.identifier == host })
        else { return nil }
        return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
    }

    /// The store that holds objects of `entity` (the first whose configuration contains it).
    func store(for entity: NSEntityDescription) -> NSPersistentStore? {
        persistentStores.first { store in store.entities.contains { entity.isKindOf(entity: $0) && $0 === entity } }
            ?? persistentStores.first
    }
}
