/// A store that runs requests as Apple's custom stores do (`NSIncrementalStore`): it is given the
/// request and the context, answers a fetch with objects or IDs, fills faults through a node of
/// values, and saves through an `NSSaveChangesRequest`. The coordinator hands the context such a
/// store instead of a row reader; it is never asked for rows.
package protocol RequestExecutingStore: OpenableStore {
    /// Runs `request` for `context`: a fetch (always an `NSFetchRequest<NSFetchRequestResult>`,
    /// whatever result type the caller declared) or a save.
    ///
    /// - Returns: For a fetch, an array (objects, IDs, `[count]` or dictionaries, as the request's
    ///   `resultType` says); for a save, an empty array.
    /// - Throws: The store's errors.
    func executeRequest(_ request: NSPersistentStoreRequest, in context: NSManagedObjectContext) throws -> Any
    /// The values of the object `objectID` names, as a row, for firing its fault; nil when the
    /// store no longer has it.
    ///
    /// - Throws: The store's errors.
    func row(for objectID: NSManagedObjectID, in context: NSManagedObjectContext) throws -> StoreRow?
    /// The IDs of the destinations of the to-many `relationship` of `objectID`'s object.
    ///
    /// - Throws: The store's errors.
    func destinationIDs(
        of relationship: NSRelationshipDescription, for objectID: NSManagedObjectID, in context: NSManagedObjectContext
    ) throws -> [NSManagedObjectID]
    /// Permanent IDs for new objects, in their order.
    ///
    /// - Throws: The store's errors.
    func permanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID]
    /// Tells the store that a context holds objects with these IDs now.
    func didRegister(_ objectIDs: [NSManagedObjectID])
}
