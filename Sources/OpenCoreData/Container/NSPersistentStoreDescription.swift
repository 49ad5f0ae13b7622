/// How a container adds one store: its type, location and options.
open class NSPersistentStoreDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: configured before `loadPersistentStores`, only read afterwards.

    /// The store type; SQLite by default.
    open var type: String = NSSQLiteStoreType
    /// The model configuration the store holds; nil for all entities.
    open var configuration: String?
    /// The store's location.
    open var url: URL?
    /// Options passed to `addPersistentStore`.
    open private(set) var options: [String: NSObject] = [:]
    /// Whether the store opens read-only.
    open var isReadOnly: Bool {
        get { (options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue ?? false }
        set { options[NSReadOnlyPersistentStoreOption] = NSNumber(value: newValue) }
    }
    /// How long to wait for the store file's lock, in seconds: passed to the store as
    /// `NSPersistentStoreTimeoutOption` unless the options set it.
    open var timeout: TimeInterval = 240
    /// SQLite pragmas applied to every connection.
    open private(set) var sqlitePragmas: [String: NSObject] = [:]
    /// Whether `loadPersistentStores` adds the store off the calling thread.
    open var shouldAddStoreAsynchronously: Bool = false
    /// Whether a store written with another version of the model is migrated when it is added
    /// (`NSMigratePersistentStoresAutomaticallyOption`); true by default, as in Core Data.
    open var shouldMigrateStoreAutomatically: Bool = true
    /// Whether the mapping for that migration is inferred (`NSInferMappingModelAutomaticallyOption`);
    /// true by default, as in Core Data.
    open var shouldInferMappingModelAutomatically: Bool = true

    /// A description of a SQLite store at `url`.
    ///
    /// - Parameter url: The file URL of the store; change `type` for another kind of store.
    public init(url: URL) {
        self.url = url
        super.init()
    }

    /// A description with no location yet.
    override public init() { super.init() }

    /// Sets an option for `addPersistentStore`.
    ///
    /// - Parameters:
    ///   - option: The option's value, or `nil` to remove the option.
    ///   - key: The option's name, such as `NSReadOnlyPersistentStoreOption`.
    open func setOption(_ option: NSObject?, forKey key: String) { options[key] = option }

    /// Sets a SQLite pragma.
    ///
    /// - Parameters:
    ///   - value: The pragma's value, such as an `NSString` or `NSNumber`, or `nil` to remove it.
    ///   - name: The pragma's name, such as `"journal_mode"`; the pragmas are passed to the store
    ///     under `NSSQLitePragmasOption`.
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        sqlitePragmas[name] = value
        options[NSSQLitePragmasOption] = sqlitePragmas as NSDictionary
    }

    /// The options as `addPersistentStore` takes them.
    var storeOptions: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [
            NSPersistentStoreTimeoutOption: timeout,
            NSMigratePersistentStoresAutomaticallyOption: shouldMigrateStoreAutomatically,
            NSInferMappingModelAutomaticallyOption: shouldInferMappingModelAutomatically,
        ]
        for (key, value) in options {
            if key == NSSQLitePragmasOption {
                var pragmas: [String: Any] = [:]
                for (name, v) in sqlitePragmas { pragmas[name] = v }
                result[key] = pragmas
            } else if let number = value as? NSNumber, key == NSReadOnlyPersistentStoreOption {
                result[key] = number.boolValue
            } else {
                result[key] = value
            }
        }
        return result
    }

    override open var description: String { "<NSPersistentStoreDescription> (type: \(type), url: \(url?.path ?? "nil"))" }
}
