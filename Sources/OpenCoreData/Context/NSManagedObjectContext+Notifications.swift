/// The notification names Core Data declares, as Swift code spells them on Apple platforms:
/// `NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, …)`.
///
/// The raw strings are Apple's, so a name built from a string elsewhere matches too.
extension NSNotification.Name {
    /// Posted before a context saves; the object is the context.
    public static let NSManagedObjectContextWillSave = NSNotification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted after a context saved, with the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`; the object is the context.
    public static let NSManagedObjectContextDidSave = NSNotification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted when the objects of a context changed, at the end of `processPendingChanges()`.
    public static let NSManagedObjectContextObjectsDidChange = NSNotification.Name("NSObjectsChangedInManagingContextNotification")
    /// Posted after a save with the object IDs of the saved objects instead of the objects.
    public static let NSManagedObjectContextDidSaveObjectIDs = NSNotification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after changes were merged into a context, with object IDs.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = NSNotification.Name(
        "NSManagedObjectContextDidMergeChangesObjectIDsNotification")
    /// Posted before a coordinator's stores change wholesale (Apple posts it for iCloud account
    /// changes; declared for code that observes it).
    public static let NSPersistentStoreCoordinatorStoresWillChange = NSNotification.Name(
        "NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Posted after a store was added to, removed from or migrated in a coordinator; the object
    /// is the coordinator, the user info has `NSAddedPersistentStoresKey`,
    /// `NSRemovedPersistentStoresKey` or `NSUUIDChangedPersistentStoresKey`.
    public static let NSPersistentStoreCoordinatorStoresDidChange = NSNotification.Name(
        "NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Posted before a store is removed from its coordinator; the object is the store.
    public static let NSPersistentStoreCoordinatorWillRemoveStore = NSNotification.Name(
        "NSPersistentStoreCoordinatorWillRemoveStoreNotification")
    /// Posted for every write to a store added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`, whoever wrote it (this coordinator,
    /// another one, another process), on a background queue; the object is the coordinator.
    public static let NSPersistentStoreRemoteChange = NSNotification.Name("NSPersistentStoreRemoteChangeNotification")
    /// Apple's iCloud (ubiquity) import notification; declared for code that observes it, never
    /// posted: OpenCoreData has no iCloud store.
    public static let NSPersistentStoreDidImportUbiquitousContentChanges = NSNotification.Name(
        "com.apple.coredata.ubiquity.importer.didfinishimport")
    /// Apple's Core Spotlight index notification; declared for code that observes it, never posted.
    public static let NSCoreDataCoreSpotlightDelegateIndexDidUpdate = NSNotification.Name(
        "NSCoreDataCoreSpotlightDelegateIndexDidUpdateNotification")
}

extension NSManagedObjectContext {
    /// Posted before a context saves (`.NSManagedObjectContextWillSave`).
    public static let willSaveObjectsNotification = NSNotification.Name.NSManagedObjectContextWillSave
    /// Posted after a context saved (`.NSManagedObjectContextDidSave`).
    public static let didSaveObjectsNotification = NSNotification.Name.NSManagedObjectContextDidSave
    /// The did-save notification's key for the history token after the save (stores with
    /// persistent history), as Core Data spells it; not a public constant there either.
    static let newChangeTokenKey = "newChangeToken"
    /// Posted when objects of a context changed (`.NSManagedObjectContextObjectsDidChange`).
    public static let didChangeObjectsNotification = NSNotification.Name.NSManagedObjectContextObjectsDidChange
    /// Posted after a save with object IDs instead of objects.
    public static let didSaveObjectIDsNotification = NSNotification.Name.NSManagedObjectContextDidSaveObjectIDs
    /// Posted after changes were merged into a context, with object IDs.
    public static let didMergeChangesObjectIDsNotification = NSNotification.Name.NSManagedObjectContextDidMergeChangesObjectIDs

    /// The user-info keys of a context's notifications, as Swift code spells them on Apple
    /// platforms: `notification.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue]`.
    public enum NotificationKey: String, Sendable {
        /// The query generation the context moved to.
        case queryGeneration = "newQueryGeneration"
        /// Whether every object of the context was invalidated (`reset()`).
        case invalidatedAllObjects = "invalidatedAll"
        /// The inserted objects.
        case insertedObjects = "inserted"
        /// The updated objects.
        case updatedObjects = "updated"
        /// The deleted objects.
        case deletedObjects = "deleted"
        /// The refreshed objects.
        case refreshedObjects = "refreshed"
        /// The invalidated objects.
        case invalidatedObjects = "invalidated"
        /// The IDs of the inserted objects.
        case insertedObjectIDs = "inserted_objectIDs"
        /// The IDs of the updated objects.
        case updatedObjectIDs = "updated_objectIDs"
        /// The IDs of the deleted objects.
        case deletedObjectIDs = "deleted_objectIDs"
        /// The IDs of the refreshed objects.
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// The IDs of the invalidated objects.
        case invalidatedObjectIDs = "invalidated_objectIDs"
    }
}

/// User-info key: the inserted objects.
public let NSInsertedObjectsKey = "inserted"
/// User-info key: the updated objects.
public let NSUpdatedObjectsKey = "updated"
/// User-info key: the deleted objects.
public let NSDeletedObjectsKey = "deleted"
/// User-info key: the refreshed objects.
public let NSRefreshedObjectsKey = "refreshed"
/// User-info key: the invalidated objects.
public let NSInvalidatedObjectsKey = "invalidated"
/// User-info key: every object was invalidated.
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
/// User-info key: IDs of inserted objects.
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// User-info key: IDs of updated objects.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// User-info key: IDs of deleted objects.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// User-info key: IDs of refreshed objects.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// User-info key: IDs of invalidated objects.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"
/// User-info key: the query generation a context moved to.
public let NSManagedObjectContextQueryGenerationKey = "newQueryGeneration"

/// `NSPersistentStoreCoordinatorStoresDidChange` user-info key: the stores added.
public let NSAddedPersistentStoresKey = "added"
/// `NSPersistentStoreCoordinatorStoresDidChange` user-info key: the stores removed.
public let NSRemovedPersistentStoresKey = "removed"
/// `NSPersistentStoreCoordinatorStoresDidChange` user-info key after a migration: the old store,
/// the new store, and the object IDs that changed (old and new, alternating).
public let NSUUIDChangedPersistentStoresKey = "changedUUID"
/// `NSPersistentStoreCoordinatorStoresWillChange` user-info key of Apple's iCloud stores.
public let NSPersistentStoreUbiquitousTransitionTypeKey = "NSPersistentStoreUbiquitousTransitionTypeKey"
/// `NSPersistentStoreRemoteChange` user-info key: the store's URL.
public let NSPersistentStoreURLKey = "storeURL"
/// `NSPersistentStoreRemoteChange` user-info key: the history token of the change.
public let NSPersistentHistoryTokenKey = "historyToken"
/// Store option: post `NSPersistentStoreRemoteChange` for every write to the store.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"
