/// Destroying, replacing and migrating store files, as Core Data's coordinator does: each goes
/// through the store type's own code (SQLite's locks and backup for the SQLite store), and a store
/// of this coordinator at the URL concerned is removed from it first.
extension NSPersistentStoreCoordinator {
    /// Empties the store at `url` so that it can be created anew; Core Data's way to delete a store.
    ///
    /// A store of this coordinator at `url` is removed from it first. A SQLite store is emptied
    /// in place, under SQLite's locks, rather than unlinked under another connection (Apple's
    /// store truncates the file); the empty file is taken as a new store by the next
    /// `addPersistentStore`. Nothing at `url` is not an error.
    ///
    /// - Parameters:
    ///   - url: The store's file.
    ///   - storeType: The store's type.
    ///   - options: The options the store is added with (unused by the SQLite store).
    /// - Throws: `NSPersistentStoreInvalidTypeError` for an unknown type; Core Data's error when
    ///   the file is not a store of that type or cannot be written.
    public func destroyPersistentStore(
        at url: URL, type storeType: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil
    ) throws {
        try destroyPersistentStore(at: url, ofType: storeType.rawValue, options: options)
    }

    /// The older spelling of `destroyPersistentStore(at:type:options:)`.
    ///
    /// - Parameters:
    ///   - url: The store's file.
    ///   - storeType: The store's type name (`NSSQLiteStoreType`…).
    ///   - options: The options the store is added with.
    /// - Throws: As `destroyPersistentStore(at:type:options:)`.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        let storeClass = try registeredClass(storeType)
        if let loaded = persistentStore(for: url) { try remove(loaded) }
        // A type that keeps nothing a URL names (in memory) has nothing to destroy.
        try (storeClass as? any StoreFileOperations.Type)?.destroyStore(at: url, options: options)
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`, creating
    /// it if there is none; nothing happens when both URLs are the same.
    ///
    /// A store of this coordinator at the destination is removed from it first. A SQLite store is
    /// copied by SQLite's backup, which reads a consistent snapshot of the source (its log
    /// included) and writes under the destination's locks.
    ///
    /// - Parameters:
    ///   - destinationURL: The store to replace.
    ///   - destinationOptions: The destination's options (unused by the SQLite store).
    ///   - sourceURL: The store to copy.
    ///   - sourceOptions: The source's options (unused by the SQLite store).
    ///   - sourceType: The type of both stores.
    /// - Throws: `NSPersistentStoreInvalidTypeError` for an unknown type, `NSFileReadNoSuchFileError`
    ///   when there is no source, `NSFileReadCorruptFileError` when it is not a store; Core Data's
    ///   error when the destination cannot be written.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
        sourceOptions: [AnyHashable: Any]? = nil, type sourceType: NSPersistentStore.StoreType
    ) throws {
        try replacePersistentStore(
            at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
            sourceOptions: sourceOptions, ofType: sourceType.rawValue)
    }

    /// The older spelling of `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`.
    ///
    /// - Parameters:
    ///   - destinationURL: The store to replace.
    ///   - destinationOptions: The destination's options.
    ///   - sourceURL: The store to copy.
    ///   - sourceOptions: The source's options.
    ///   - storeType: The type name of both stores.
    /// - Throws: As the `type:` spelling.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
        sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String
    ) throws {
        let storeClass = try registeredClass(storeType)
        guard destinationURL.standardizedFileURL != sourceURL.standardizedFileURL else { return }
        if let loaded = persistentStore(for: destinationURL) { try remove(loaded) }
        guard let files = storeClass as? any StoreFileOperations.Type else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "Stores of type '\(storeType)' can't be replaced from a file.",
                userInfo: [NSFilePathErrorKey: destinationURL.path])
        }
        try files.replaceStore(at: destinationURL, withStoreFrom: sourceURL)
    }

    /// Moves `store` to a new file at `url` ("Save As"): the new store holds the same objects under
    /// a store UUID of its own, takes the old store's place in the coordinator, and is returned;
    /// the old store is removed from the coordinator and its file left as it was.
    ///
    /// Observers get one `.NSPersistentStoreCoordinatorStoresDidChange` with
    /// `NSUUIDChangedPersistentStoresKey`: the old store, the new one, and the object IDs that
    /// changed, old and new alternating; then the old store's removal.
    ///
    /// - Parameters:
    ///   - store: A store of this coordinator.
    ///   - url: Where the new store goes; there must be no store there yet.
    ///   - options: The options of the new store.
    ///   - storeType: The new store's type; OpenCoreData migrates a SQLite store to a SQLite store.
    /// - Returns: The new store.
    /// - Throws: `NSPersistentStoreOperationError` when `store` is not in this coordinator, a file
    ///   is already at `url` or the types differ; Core Data's error when the copy fails, in which
    ///   case the coordinator keeps the old store and no file is left at `url`.
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, type storeType: NSPersistentStore.StoreType
    ) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: storeType.rawValue)
    }

    /// The older spelling of `migratePersistentStore(_:to:options:type:)`.
    ///
    /// - Parameters:
    ///   - store: A store of this coordinator.
    ///   - url: Where the new store goes.
    ///   - options: The options of the new store.
    ///   - storeType: The new store's type name.
    /// - Returns: The new store.
    /// - Throws: As the `type:` spelling.
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, withType storeType: String
    ) throws -> NSPersistentStore {
        _ = try registeredClass(storeType)
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store to migrate is not in this coordinator.")
        }
        guard storeType == store.type else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "OpenCoreData migrates a store to another store of its type ('\(store.type)'), not to '\(storeType)'.")
        }
        guard let files = store as? any StoreFileOperations else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "Stores of type '\(store.type)' can't be migrated to a file yet.",
                userInfo: [NSFilePathErrorKey: url.path])
        }
        try files.copyForMigration(to: url)
        let configuration = store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
        let newStore: NSPersistentStore
        do {
            newStore = try addStore(ofType: storeType, configurationName: configuration, at: url, options: options)
        } catch {
            type(of: files).discardStoreFiles(at: url)
            throw error
        }
        var changedIDs: [NSManagedObjectID] = []
        for entity in managedObjectModel.entities where entity.superentity == nil && store.entities.contains(where: { $0 === entity }) {
            let query = StoreQuery(
                entity: entity, predicate: nil, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, includesSubentities: true,
                includesPropertyValues: false)
            for id in (try? reader(of: store).fetchObjectIDs(query)) ?? [] {
                changedIDs.append(id)
                changedIDs.append(NSManagedObjectID(entity: id.entity, store: newStore, primaryKey: id.primaryKey))
            }
        }
        postStoresDidChange([NSUUIDChangedPersistentStoresKey: [store, newStore, changedIDs] as [Any]])
        try remove(store)
        return newStore
    }

    /// The class registered for `storeType`.
    private func registeredClass(_ storeType: String) throws -> NSPersistentStore.Type {
        guard let storeClass = NSPersistentStoreCoordinator.registeredTypes.withLock({ $0[storeType] }) else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "Unsupported store type '\(storeType)'.", userInfo: [NSStoreTypeKey: storeType])
        }
        return storeClass
    }

    /// Does the table copies that lightweight migrations with
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey` left for later, in every store of
    /// the coordinator that has some: each such table is rebuilt without the columns the model no
    /// longer has, in one transaction per store, and the key leaves the store's metadata.
    ///
    /// - Throws: Core Data's error when a store cannot be written; a store that fails is left as
    ///   it was.
    public func finishDeferredLightweightMigration() throws {
        for case let store as any DeferredMigrationStore in persistentStores { try store.finishDeferredMigration() }
    }

    /// The same work, as the task Apple's platforms schedule with `BGProcessingTask`.
    ///
    /// - Throws: As `finishDeferredLightweightMigration()`.
    public func finishDeferredLightweightMigrationTask() throws {
        try finishDeferredLightweightMigration()
    }
}
