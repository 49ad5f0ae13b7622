/// A store type that keeps its data somewhere a URL names (a file, a database) and so takes part
/// in the coordinator's file operations: destroy, replace, migrate into a new store, install a
/// migrated copy. A type without them keeps nothing to destroy, and refuses to be replaced or
/// migrated into a file.
protocol StoreFileOperations: OpenableStore {
    /// Removes or empties the store at `url`, for `destroyPersistentStore`.
    ///
    /// - Throws: `NSPersistentStoreOperationError` when it cannot.
    static func destroyStore(at url: URL, options: [AnyHashable: Any]?) throws
    /// Copies the store at `source` over `destination`, for `replacePersistentStore`.
    ///
    /// - Throws: `NSPersistentStoreOperationError` when it cannot.
    static func replaceStore(at destination: URL, withStoreFrom source: URL) throws
    /// Deletes the files of a store this process just made at `url` and could not open.
    static func discardStoreFiles(at url: URL)
    /// Puts the closed store at `source`, a migrated copy, in the place of the closed store at
    /// `destination`, in one step that a crash cannot leave half done.
    ///
    /// - Throws: `NSPersistentStoreOperationError` when it cannot.
    static func installMigratedStore(from source: URL, at destination: URL) throws
    /// Copies this open store into a new store at `destination`, with a store UUID of its own,
    /// for `migratePersistentStore`.
    ///
    /// - Throws: `NSPersistentStoreOperationError` when it cannot.
    func copyForMigration(to destination: URL) throws
}

/// A store whose lightweight migration can leave table copies for later
/// (`NSPersistentStoreDeferredLightweightMigrationOptionKey`).
protocol DeferredMigrationStore: OpenableStore {
    /// Does the table copies a deferred lightweight migration left
    /// (`finishDeferredLightweightMigration()`); nothing when none are pending.
    ///
    /// - Throws: The store's errors.
    func finishDeferredMigration() throws
}
