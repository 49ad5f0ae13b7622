/// What every store behind a coordinator is: opened with the coordinator's model when it is
/// added, closed when it is removed. The coordinator refuses a registered class that is not one.
///
/// The store contract is a set of protocols, one per capability (this one, `RowReadingStore`,
/// `ChangeSavingStore`, `BatchRequestStore`, `HistoryTrackingStore`,
/// `StoreFileOperations`): a store conforms to what it can do, and the coordinator asks the type
/// system, through its own accessors (`NSPersistentStoreCoordinator+StoreAccess`), rather than a
/// base class answering "unsupported" for everything a store leaves out.
package protocol OpenableStore: NSPersistentStore {
    /// Opens the store for `model`: reads or creates what it keeps, checks the version hashes.
    ///
    /// - Parameter model: The coordinator's model (frozen).
    /// - Throws: A Core Data error (`NSPersistentStoreIncompatibleVersionHashError`,
    ///   `NSPersistentStoreOpenError`…); a failed open leaves what it opened untouched.
    func load(model: NSManagedObjectModel) throws
    /// Closes the store; nothing reads or writes it afterwards.
    func close()
    /// Replaces the store's metadata (for `NSPersistentStoreCoordinator.setMetadata`), so that a
    /// concurrent save sees the old or the new metadata, never half of each.
    ///
    /// - Parameter metadata: The new metadata, `NSStoreUUID` and `NSStoreType` set.
    func replaceMetadata(_ metadata: [String: Any])
    /// Whether a coordinator refuses to add a second store at this store's URL (a file, a
    /// database): true for stores whose URL names where the data lives.
    static var holdsItsURLAlone: Bool { get }
}

extension OpenableStore {
    package func close() {}
    package func replaceMetadata(_ metadata: [String: Any]) { self.metadata = metadata }
    package static var holdsItsURLAlone: Bool { false }
}
