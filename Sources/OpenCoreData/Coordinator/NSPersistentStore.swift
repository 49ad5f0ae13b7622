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

    // MARK: What every store shares. What a store can do is in the contract's protocols
    // (Stores/Contract), which the coordinator asks for each capability.

    /// The entities this store holds.
    package var entities: [NSEntityDescription] {
        persistentStoreCoordinator?.managedObjectModel.entities(forConfigurationName: configurationName) ?? []
    }

    package static func historyNotTracked() -> NSError {
        CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, "No history tracking option detected on store.")
    }

    /// Whether `options` turn persistent history on: a true Bool or number, or a dictionary (the
    /// form that carries history migration options).
    package static func historyTracking(in options: [AnyHashable: Any]?) -> Bool {
        switch options?[NSPersistentHistoryTrackingKey] {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        case is [AnyHashable: Any], is NSDictionary: true
        default: false
        }
    }

    // MARK: Remote change notifications

    /// Whether `options` ask for `NSPersistentStoreRemoteChange` notifications.
    package static func postsRemoteChanges(in options: [AnyHashable: Any]?) -> Bool {
        flag(NSPersistentStoreRemoteChangeNotificationPostOptionKey, in: options)
    }

    /// Whether an option is on (a Bool or an NSNumber).
    package static func flag(_ key: String, in options: [AnyHashable: Any]?) -> Bool {
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
    package func announceRemoteChange(historyNumber: Int64? = nil) {
        guard let coordinator = persistentStoreCoordinator else { return }
        var userInfo: [AnyHashable: Any] = [NSStoreUUIDKey: identifier ?? ""]
        if let url { userInfo[NSPersistentStoreURLKey] = url }
        if let history = self as? any HistoryTrackingStore, history.tracksPersistentHistory,
            let number = historyNumber ?? (try? history.lastHistoryNumber())
        {
            userInfo[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(transactionNumber: number, storeID: identifier)
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: userInfo)
    }

    /// Whether the store's configuration lists `entity`.
    func holds(_ entity: NSEntityDescription) -> Bool { entities.contains { $0 === entity } }

    /// The entity with store number `number` in this store's model.
    package func entity(number: Int32) -> NSEntityDescription? {
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
