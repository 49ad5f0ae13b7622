/// A save as an `NSIncrementalStore` receives it: the objects inserted, updated, deleted and
/// locked (read, and checked for changes by others) since the last save.
open class NSSaveChangesRequest: NSPersistentStoreRequest {
    /// Objects new since the last save; they have their permanent IDs already.
    open private(set) var insertedObjects: Set<NSManagedObject>?
    /// Objects changed since the last save.
    open private(set) var updatedObjects: Set<NSManagedObject>?
    /// Objects deleted since the last save.
    open private(set) var deletedObjects: Set<NSManagedObject>?
    /// Objects whose versions the save must find unchanged in the store.
    open private(set) var lockedObjects: Set<NSManagedObject>?

    /// Creates a save request.
    ///
    /// - Parameters:
    ///   - insertedObjects: New objects.
    ///   - updatedObjects: Changed objects.
    ///   - deletedObjects: Deleted objects.
    ///   - lockedObjects: Objects to check for changes by others.
    public init(
        inserted insertedObjects: Set<NSManagedObject>?, updated updatedObjects: Set<NSManagedObject>?,
        deleted deletedObjects: Set<NSManagedObject>?, locked lockedObjects: Set<NSManagedObject>?
    ) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        super.init()
    }

    /// `.saveRequestType`.
    override open var requestType: NSPersistentStoreRequestType { .saveRequestType }
}
