/// The whole Core Data stack in one object: model, coordinator, stores and a main-queue context.
///
/// ```swift
/// let container = NSPersistentContainer(name: "Done")
/// container.loadPersistentStores { _, error in
///     if let error { fatalError("\(error)") }
/// }
/// let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: container.viewContext)
/// ```
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `persistentStoreDescriptions` is set up before loading, as Core Data
    // asks; `viewContext` is made once under its lock, whichever threads ask for it first; the
    // coordinator and contexts are themselves Sendable.

    /// The container's name: the model's and the default store file's.
    public let name: String
    /// The model of the container.
    public let managedObjectModel: NSManagedObjectModel
    /// The coordinator of the container's stores.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// The stores `loadPersistentStores` adds; one SQLite store at the default location unless changed.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]

    /// The main-queue context for the user interface (or the main thread of a command-line program).
    ///
    /// Made on first use, once: threads that ask at the same time all get the same context.
    public var viewContext: NSManagedObjectContext {
        viewContextStorage.withLock { stored in
            if let stored { return stored }
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = persistentStoreCoordinator
            stored = context
            return context
        }
    }
    private let viewContextStorage = Locked<NSManagedObjectContext?>(nil)

    /// The folder where stores go by default: `$XDG_DATA_HOME`, or `$HOME/.local/share`.
    ///
    /// - Returns: The folder, which may not exist yet (`loadPersistentStores` creates it).
    open class func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        // `$HOME` first, as the XDG specification says: Foundation's home directory on Linux is
        // the password database's, whatever `HOME` says.
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
        return (home ?? FileManager.default.homeDirectoryForCurrentUser).appendingPathComponent(".local/share", isDirectory: true)
    }

    /// A container whose model is `<name>.xcdatamodeld` (or `.xcdatamodel`, or the compiled
    /// `<name>.momd` or `.mom`), found in the main bundle, the resource bundles beside the
    /// executable, or the current directory.
    ///
    /// Stops the program, as Core Data does, when no such model exists; use
    /// `init(name:managedObjectModel:)` with `NSManagedObjectModel(contentsOf:)` to handle that.
    ///
    /// - Parameter name: The model's name, and the default store file's (`<name>.sqlite`).
    public convenience init(name: String) {
        guard let url = NSPersistentContainer.findModel(named: name),
            let model = NSManagedObjectModel(contentsOf: url)
        else {
            preconditionFailure("Failed to find a data model named '\(name)' (\(name).xcdatamodeld) in the bundles.")
        }
        self.init(name: name, managedObjectModel: model)
    }

    /// A container for `model`, with one SQLite store description at
    /// `defaultDirectoryURL()/<name>.sqlite`.
    ///
    /// - Parameters:
    ///   - name: The container's name and the default store file's.
    ///   - model: The model of the container's objects.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        self.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        super.init()
    }

    /// Adds every store in `persistentStoreDescriptions`, calling `block` once per store with the
    /// error, if any. Creates the default folder when a store goes there.
    ///
    /// - Parameter block: Called on the calling thread once per description, with the error that
    ///   kept its store from loading (`NSPersistentStoreIncompatibleVersionHashError`,
    ///   `NSFileReadCorruptFileError`…) or nil.
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            do {
                // A store kept in a file (SQLite's) needs its folder.
                if NSPersistentStoreCoordinator.registeredTypes.withLock({ $0[description.type] }) is any StoreFileOperations.Type,
                    let url = description.url,
                    url.deletingLastPathComponent() == NSPersistentContainer.defaultDirectoryURL()
                {
                    try FileManager.default.createDirectory(
                        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                }
                try persistentStoreCoordinator.addPersistentStore(
                    ofType: description.type, configurationName: description.configuration, at: description.url,
                    options: description.storeOptions)
                block(description, nil)
            } catch {
                block(description, error)
            }
        }
    }

    /// A new private-queue context on the container's coordinator.
    ///
    /// - Returns: The context; each call makes a new one.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new private-queue context.
    ///
    /// - Parameter block: The work, given the context; it runs on the context's queue.
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new private-queue context and returns its value.
    ///
    /// Declared as Core Data declares it: the block need not be `@Sendable` nor its value
    /// `Sendable` (the block is handed to the context's queue once and not kept), and one that
    /// does not throw needs no `try` (Core Data's `rethrows`, here through typed throws).
    ///
    /// - Parameter block: The work, given the context; it runs on the context's queue.
    /// - Returns: What `block` returned.
    /// - Throws: What `block` threw, unchanged; nothing when `block` cannot throw.
    open func performBackgroundTask<T, E: Error>(_ block: @escaping (NSManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        let context = newBackgroundContext()
        let transfer = UncheckedTransfer(block)
        return try await context.perform { () throws(E) -> T in try transfer.value(context) }
    }

    static func findModel(named name: String) -> URL? {
        var folders: [URL] = [Bundle.main.bundleURL, Bundle.main.resourceURL].compactMap { $0 }
        let executableFolder = Bundle.main.executableURL?.deletingLastPathComponent()
        if let executableFolder {
            folders.append(executableFolder)
            let contents = (try? FileManager.default.contentsOfDirectory(at: executableFolder, includingPropertiesForKeys: nil)) ?? []
            // The program's own resource bundle (`Package_program.resources`) first: a build
            // folder also holds other programs' bundles, which may ship a model of the same name.
            let bundles = contents.filter { $0.pathExtension == "resources" || $0.pathExtension == "bundle" }
            let own = "_" + ProcessInfo.processInfo.processName
            folders += bundles.filter { $0.deletingPathExtension().lastPathComponent.hasSuffix(own) }
            folders += bundles.filter { !$0.deletingPathExtension().lastPathComponent.hasSuffix(own) }
        }
        folders += Bundle.allBundles.compactMap(\.resourceURL)
        folders.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        return model(named: name, in: folders)
    }

    /// The model called `name` in the first of `folders` that has one: Xcode's source model
    /// (`.xcdatamodeld`, `.xcdatamodel`), else the compiled one an Apple app bundle holds
    /// (`.momd`, `.mom`), which is what Core Data's container looks for.
    static func model(named name: String, in folders: [URL]) -> URL? {
        for folder in folders {
            for ext in ["xcdatamodeld", "xcdatamodel", "momd", "mom"] {
                let candidate = folder.appendingPathComponent("\(name).\(ext)")
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }
}
