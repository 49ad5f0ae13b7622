extension NSManagedObjectContext {
    /// Posted before a context saves; the object is the context.
    public static let willSaveObjectsNotification = Notification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted after a context saved, with the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`.
    public static let didSaveObjectsNotification = Notification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted when objects of a context changed (processPendingChanges).
    public static let didChangeObjectsNotification = Notification.Name("NSObjectsChangedInManagingContextNotification")
    /// Posted after a save with object IDs instead of objects.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after changes were merged into a context, with object IDs.
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")
}

/// The pre-Swift names of the notifications.
public let NSManagedObjectContextWillSave = NSManagedObjectContext.willSaveObjectsNotification
public let NSManagedObjectContextDidSave = NSManagedObjectContext.didSaveObjectsNotification
public let NSManagedObjectContextObjectsDidChange = NSManagedObjectContext.didChangeObjectsNotification

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
