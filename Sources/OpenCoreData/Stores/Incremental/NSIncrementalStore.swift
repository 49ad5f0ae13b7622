/// The base class of a store that loads and saves objects its own way (a web service, a
/// key-value store, another database), as Core Data's custom stores do: Core Data hands it
/// requests and asks it for values; it answers with object IDs it makes from its own reference
/// objects, and nodes of values.
///
/// A subclass overrides `loadMetadata()` (setting `NSStoreTypeKey` and `NSStoreUUIDKey`),
/// `execute(_:with:)` for fetch requests (`NSFetchRequest<NSFetchRequestResult>`, whatever result
/// type the caller declared) and save requests (`NSSaveChangesRequest`),
/// `newValuesForObject(with:with:)`, `newValue(forRelationship:forObjectWith:with:)` and
/// `obtainPermanentIDs(for:)`, and registers its class with
/// `NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`.
open class NSIncrementalStore: NSPersistentStore, RequestExecutingStore, @unchecked Sendable {
    // @unchecked Sendable: the reference table is under its lock; the subclass guards its own data.

    /// Reference objects by object-ID key and back, per entity hierarchy.
    private let references = ReferenceObjects()

    /// The type the metadata names (`NSStoreTypeKey`), the name the class was registered under.
    override open var type: String { (metadata?[NSStoreTypeKey] as? String) ?? "" }

    package func load(model: NSManagedObjectModel) throws {
        try loadMetadata()
        guard let uuid = metadata?[NSStoreUUIDKey] as? String, !uuid.isEmpty else {
            throw CoreDataError.make(
                NSPersistentStoreOpenError, "The incremental store's loadMetadata() set no NSStoreUUIDKey in its metadata.")
        }
        identifier = uuid
    }

    /// Reads the store's metadata (or makes it, for a new store) and sets `metadata`, with
    /// `NSStoreTypeKey` and `NSStoreUUIDKey` at least. Called when the store is added.
    ///
    /// - Throws: An error that stops the store from being added; this base class throws
    ///   `NSPersistentStoreOpenError`: a subclass must override it.
    open func loadMetadata() throws {
        throw CoreDataError.make(NSPersistentStoreOpenError, "\(Swift.type(of: self)) must override loadMetadata().")
    }

    /// Runs a request: for an `NSFetchRequest<NSFetchRequestResult>`, an array of objects
    /// (`context.object(with:)` of the IDs the store made), of `NSManagedObjectID`s, `[count]` or
    /// dictionaries, as its `resultType` says; for an `NSSaveChangesRequest`, an empty array once
    /// the changes are written.
    ///
    /// - Parameters:
    ///   - request: The request; `request.requestType` tells which.
    ///   - context: The context that runs it.
    /// - Returns: The result, as above.
    /// - Throws: The store's errors; this base class throws 134091: a subclass must override it.
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "\(Swift.type(of: self)) must override execute(_:with:).")
    }

    /// The values of the object `objectID` names, when its fault fires.
    ///
    /// - Parameters:
    ///   - objectID: An ID this store made.
    ///   - context: The context whose object fires.
    /// - Returns: A node with the object's attribute values and to-one destinations.
    /// - Throws: An error when the object cannot be read (the fault then reads as nil, or stops
    ///   the program without `shouldDeleteInaccessibleFaults`); this base class throws 134091.
    open func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "\(Swift.type(of: self)) must override newValuesForObject(with:with:).")
    }

    /// The destination of a relationship of the object `objectID` names.
    ///
    /// - Parameters:
    ///   - relationship: A relationship of the object's entity.
    ///   - objectID: An ID this store made.
    ///   - context: The context that asks, if any.
    /// - Returns: For a to-many, an array (or set) of the destinations' IDs; for a to-one, the
    ///   destination's ID or `NSNull`.
    /// - Throws: The store's errors; this base class throws 134091.
    open func newValue(
        forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
        with context: NSManagedObjectContext?
    ) throws -> Any {
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "\(Swift.type(of: self)) must override newValue(forRelationship:forObjectWith:with:).")
    }

    /// Permanent IDs for new objects, made with `newObjectID(for:referenceObject:)` from the
    /// references the store will keep them under. Called before a save, and by
    /// `obtainPermanentIDs(for:)` of a context.
    ///
    /// - Parameter array: New objects, with temporary IDs.
    /// - Returns: Their permanent IDs, in the same order.
    /// - Throws: The store's errors; this base class throws 134091.
    open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "\(Swift.type(of: self)) must override obtainPermanentIDs(for:).")
    }

    /// Told when a context starts holding objects with these IDs (a fetch returned them).
    ///
    /// - Parameter objectIDs: IDs this store made.
    open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Told when a context stops holding objects with these IDs (it was reset).
    ///
    /// - Parameter objectIDs: IDs this store made.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// The ID of the object the store keeps under `data`: the same ID every time for the same
    /// reference of the same entity hierarchy.
    ///
    /// - Parameters:
    ///   - entity: The object's entity.
    ///   - data: The store's reference: a string, a number, a UUID or any other hashable value.
    /// - Returns: A permanent ID of this store.
    /// - Complexity: O(1) on average.
    public func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        references.objectID(for: entity, reference: data, store: self)
    }

    /// The reference an ID of this store was made from.
    ///
    /// - Parameter objectID: An ID `newObjectID(for:referenceObject:)` made.
    /// - Returns: The reference object, as given.
    open func referenceObject(for objectID: NSManagedObjectID) -> Any {
        references.reference(for: objectID) ?? NSNull()
    }

    /// A new store's identifier (`NSStoreUUIDKey`), for `loadMetadata()`.
    ///
    /// - Parameter storeURL: The store's URL.
    /// - Returns: A new UUID string.
    open class func identifierForNewStore(at storeURL: URL) -> Any { UUID().uuidString }

    // MARK: The contract (RequestExecutingStore)

    package func executeRequest(_ request: NSPersistentStoreRequest, in context: NSManagedObjectContext) throws -> Any {
        try execute(request, with: context)
    }

    package func row(for objectID: NSManagedObjectID, in context: NSManagedObjectContext) throws -> StoreRow? {
        let node = try newValuesForObject(with: objectID, with: context)
        return StoreRow(customStoreObject: objectID, version: node.version) { node.value(for: $0) }
    }

    package func destinationIDs(
        of relationship: NSRelationshipDescription, for objectID: NSManagedObjectID, in context: NSManagedObjectContext
    ) throws -> [NSManagedObjectID] {
        // An array, a set or an ordered set of IDs; a to-one's single ID; NSNull for none.
        let value = try newValue(forRelationship: relationship, forObjectWith: objectID, with: context)
        return ManagedValueConversion.objects(value).compactMap { $0 as? NSManagedObjectID }
    }

    package func permanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        let ids = try obtainPermanentIDs(for: objects)
        guard ids.count == objects.count else {
            throw CoreDataError.make(
                NSCoreDataError, "\(Swift.type(of: self)).obtainPermanentIDs(for:) returned \(ids.count) IDs for \(objects.count) objects.")
        }
        return ids
    }

    package func didRegister(_ objectIDs: [NSManagedObjectID]) { managedObjectContextDidRegisterObjects(with: objectIDs) }
}
