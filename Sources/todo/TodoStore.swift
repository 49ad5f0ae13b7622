import OpenCoreData

/// The app's Core Data stack: a container for the `Done` model on one store file.
final class TodoStore: Sendable {
    /// The entity of the to-do items, named as in the tutorials.
    static let entityName = "TSPItem"

    /// What a command does with the store, which decides how it is opened.
    enum Access {
        /// Reads only: opens the store read-only; it must exist.
        case read
        /// Changes existing items: the store must exist, since there is nothing to change otherwise
        /// and a failed command must not leave a new store behind.
        case update
        /// Adds items: creates the store when it is missing (and the default folder with it).
        case create
    }

    let container: NSPersistentContainer
    let location: StoreLocation

    /// Opens the store at `location` with the model that ships with the program.
    ///
    /// - Throws: `TodoError.noStore` when the store must exist and does not; Core Data's error when
    ///   the file is not a store, was written with another model, or cannot be created, or the
    ///   database cannot be reached.
    init(at location: StoreLocation, access: Access, createFolder: Bool = false, watching: Bool = false) throws {
        self.location = location
        // An empty file is no store either: Core Data would make one in it, and a command that
        // only changes items must not leave a new store behind.
        if access != .create, !location.exists {
            throw TodoError.noStore(at: location)
        }
        if access == .create, createFolder, case .file(let url) = location {
            let folder = url.deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                // The system's reason ("Permission denied", "Read-only file system") says more than
                // Foundation's wrapper around it.
                let reason = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError) ?? (error as NSError)
                throw TodoError("Can't create the folder \(folder.path) for the store: \(reason.localizedDescription).")
            }
        }
        // Core Data's way: the container finds Done.xcdatamodeld among the program's resources.
        container = NSPersistentContainer(name: "Done")
        let description = NSPersistentStoreDescription(url: location.url)
        description.type = location.storeType
        description.isReadOnly = access == .read
        // Every change is recorded, so that another process (`todo watch`) can tell what it was.
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        if watching { description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey) }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        MigrationProgress.following { container.loadPersistentStores { _, error in loadError = error } }
        // A store an earlier version of the program wrote is migrated to the current model the
        // first time any command opens it, with a bar on standard error; a read-only store cannot
        // migrate, so a reading command opens it for writing that once.
        if description.isReadOnly, (loadError as NSError?)?.code == NSPersistentStoreIncompatibleVersionHashError {
            description.isReadOnly = false
            container.persistentStoreDescriptions = [description]
            loadError = nil
            MigrationProgress.following { container.loadPersistentStores { _, error in loadError = error } }
        }
        // A database schema's store is known to be missing only once asked: a read finds none.
        if case .database = location, access != .create, (loadError as NSError?)?.code == NSFileNoSuchFileError {
            throw TodoError.noStore(at: location)
        }
        if let loadError { throw loadError }
    }

    /// Opens the store a command's `--store` option names for reading, or nil when there is none
    /// yet (reading never creates one).
    static func openForReading(_ options: StoreOptions) throws -> TodoStore? {
        let location = try options.location()
        guard location.exists else { return nil }
        do {
            return try TodoStore(options, access: .read)
        } catch let error as TodoError where error.isNoStore {
            return nil
        }
    }

    /// Opens the store a command's `--store` option names.
    convenience init(_ options: StoreOptions, access: Access) throws {
        try self.init(at: try options.location(), access: access, createFolder: options.isDefaultLocation)
    }

    /// Closes the store. SQLite then folds its write-ahead log back into the file, so that between
    /// commands the store is one self-contained file: what `stats` measures and a copy carries.
    func close() {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
    }

    /// Opens the store for changes, runs `body` on a new background context's queue, closes the
    /// store, and returns what `body` returned with how long it took: the shape of the batch
    /// commands, which print a count and a time.
    static func timedUpdate<T>(
        _ options: StoreOptions, _ body: @escaping @Sendable (NSManagedObjectContext) throws -> T
    ) async throws -> (result: T, time: String) {
        let store = try TodoStore(options, access: .update)
        defer { store.close() }
        let context = store.container.newTodoContext()
        let started = ContinuousClock.now
        let result = try await context.perform { try body(context) }
        return (result, Demo.format(ContinuousClock.now - started))
    }

    // MARK: Short ids

    /// The id `todo list` shows: the primary key at the end of the object's URI
    /// (`x-coredata://<store UUID>/TSPItem/p42` → `42`).
    static func shortID(of objectID: NSManagedObjectID) -> String {
        String(objectID.uriRepresentation().lastPathComponent.dropFirst())
    }

    /// The object ID a short id stands for, through the URI it was cut from; nil for anything
    /// that is not such an id.
    func objectID(forShortID id: String) -> NSManagedObjectID? {
        let coordinator = container.persistentStoreCoordinator
        guard let number = Int64(id), number > 0, let store = coordinator.persistentStores.first,
            let uri = URL(string: "x-coredata://\(store.identifier!)/\(Self.entityName)/p\(number)")
        else { return nil }
        return coordinator.managedObjectID(forURIRepresentation: uri)
    }

    /// The items that `ids` name, registered in `context`; call on the context's queue.
    ///
    /// - Throws: `TodoError.unknownID` for the first id that names no item, before the caller has
    ///   changed anything.
    func items(withShortIDs ids: [String], in context: NSManagedObjectContext) throws -> [TSPItem] {
        try ids.map { id in
            guard let objectID = objectID(forShortID: id) else { throw TodoError.unknownID(id, in: location) }
            do {
                guard let item = try context.existingObject(with: objectID) as? TSPItem else { throw TodoError.unknownID(id, in: location) }
                return item
            } catch let error as NSError where error.code == NSManagedObjectReferentialIntegrityError {
                throw TodoError.unknownID(id, in: location)
            }
        }
    }

    // MARK: Requests

    /// A fetch request for the items, oldest first, as the tutorials' table shows them.
    static func itemsRequest(done: Bool? = nil) -> NSFetchRequest<TSPItem> {
        let request: NSFetchRequest<TSPItem> = TSPItem.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(keyPath: \TSPItem.createdAt, ascending: true)]
        if let done { request.predicate = NSPredicate(format: "done == %@", NSNumber(value: done)) }
        return request
    }

    /// One line of the list: id, check mark and name. Call on the item's context's queue.
    static func row(for item: TSPItem, idWidth: Int = 0) -> String {
        let id = shortID(of: item.objectID)
        let padding = String(repeating: " ", count: max(0, idWidth - id.count))
        let mark = item.done ? "✓" : "·"
        return "\(padding)\(id) \(mark) \(item.title ?? "")"
    }
}
