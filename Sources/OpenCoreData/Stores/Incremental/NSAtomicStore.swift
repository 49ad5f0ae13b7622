/// The base class of a store that reads all its objects at once and writes them all at once (a
/// file in a format of its own), as Core Data's atomic stores do: `load()` reads the file into
/// cache nodes, Core Data fetches from them in memory, and a save updates them and calls
/// `save()`.
///
/// A subclass overrides `load()` (making nodes with `objectID(for:withReferenceObject:)` and
/// adding them with `addCacheNodes(_:)`), `save()` (writing `cacheNodes()`), and
/// `newReferenceObject(for:)`; it sets its metadata (`NSStoreTypeKey`, `NSStoreUUIDKey`) and is
/// registered with `NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`.
open class NSAtomicStore: NSPersistentStore, RequestExecutingStore, @unchecked Sendable {
    // @unchecked Sendable: the nodes are under `lock`; the reference table under its own.

    private let references = ReferenceObjects()
    private let lock = NSRecursiveLock()
    private var nodes: [NSManagedObjectID: NSAtomicStoreCacheNode] = [:]

    /// The type the metadata names (`NSStoreTypeKey`), the name the class was registered under.
    override open var type: String { (metadata?[NSStoreTypeKey] as? String) ?? "" }

    package func load(model: NSManagedObjectModel) throws {
        try load()
        var metadata = self.metadata ?? [:]
        if (metadata[NSStoreUUIDKey] as? String)?.isEmpty != false {
            metadata[NSStoreUUIDKey] = UUID().uuidString
            self.metadata = metadata
        }
        identifier = metadata[NSStoreUUIDKey] as? String
    }

    /// Reads the store's objects into cache nodes (`addCacheNodes(_:)`). Called when the store is
    /// added.
    ///
    /// - Throws: An error that stops the store from being added; this base class throws
    ///   `NSPersistentStoreOpenError`: a subclass must override it.
    open func load() throws {
        throw CoreDataError.make(NSPersistentStoreOpenError, "\(Swift.type(of: self)) must override load().")
    }

    /// Writes every cache node (`cacheNodes()`) where the store keeps them. Called at the end of
    /// each save, after the nodes were updated.
    ///
    /// - Throws: An error that fails the save; this base class throws
    ///   `NSPersistentStoreSaveError`: a subclass must override it.
    open func save() throws {
        throw CoreDataError.make(NSPersistentStoreSaveError, "\(Swift.type(of: self)) must override save().")
    }

    /// A new node for an object inserted since the last save; its values are copied with
    /// `updateCacheNode(_:from:)`.
    ///
    /// - Parameter managedObject: The object, with its permanent ID.
    /// - Returns: The node.
    open func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        let node = NSAtomicStoreCacheNode(objectID: managedObject.objectID)
        updateCacheNode(node, from: managedObject)
        return node
    }

    /// Copies an object's values into its node: attributes as they are, to-one destinations as
    /// their nodes, to-many ones as sets of their nodes (ordered sets for ordered relationships).
    ///
    /// - Parameters:
    ///   - node: The object's node.
    ///   - managedObject: The object.
    open func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        let cache = NSMutableDictionary()
        for (name, attribute) in managedObject.entity.attributesByName where !attribute.isTransient {
            if let value = managedObject.value(forKey: name) { cache[name] = value }
        }
        for (name, relationship) in managedObject.entity.relationshipsByName {
            let value = managedObject.value(forKey: name)
            if relationship.isToMany {
                let members = value.map { ManagedValueConversion.objects($0) } ?? []
                let nodes = members.compactMap { ($0 as? NSManagedObject).flatMap { self.cacheNode(for: $0.objectID) } }
                cache[name] = relationship.isOrdered ? NSOrderedSet(array: nodes) : NSSet(array: nodes)
            } else if let destination = value as? NSManagedObject, let destinationNode = cacheNode(for: destination.objectID) {
                cache[name] = destinationNode
            }
        }
        node.propertyCache = cache
    }

    /// Every node the store holds.
    ///
    /// - Returns: The nodes.
    /// - Complexity: O(n) in the number of nodes.
    open func cacheNodes() -> Set<NSAtomicStoreCacheNode> {
        lock.withLock { Set(nodes.values) }
    }

    /// Adds nodes (from `load()`, or new objects of a save).
    ///
    /// - Parameter cacheNodes: The nodes.
    open func addCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        lock.withLock { for node in cacheNodes { nodes[node.objectID] = node } }
    }

    /// Told before the nodes of deleted objects are removed.
    ///
    /// - Parameter cacheNodes: The nodes about to go.
    open func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {}

    /// The node of the object `objectID` names.
    ///
    /// - Parameter objectID: An ID of this store.
    /// - Returns: The node, or nil.
    open func cacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
        lock.withLock { nodes[objectID] }
    }

    /// The ID of the object the store keeps under `data`: the same ID every time for the same
    /// reference of the same entity hierarchy.
    ///
    /// - Parameters:
    ///   - entity: The object's entity.
    ///   - data: The store's reference: a string, a number, a UUID or any other hashable value.
    /// - Returns: A permanent ID of this store.
    open func objectID(for entity: NSEntityDescription, withReferenceObject data: Any) -> NSManagedObjectID {
        references.objectID(for: entity, reference: data, store: self)
    }

    /// The reference a new object is kept under. This base class makes a UUID string.
    ///
    /// - Parameter managedObject: An object inserted since the last save.
    /// - Returns: Its reference, unique in the store.
    open func newReferenceObject(for managedObject: NSManagedObject) -> Any { UUID().uuidString }

    /// The reference an ID of this store was made from.
    ///
    /// - Parameter objectID: An ID `objectID(for:withReferenceObject:)` made.
    /// - Returns: The reference object, as given.
    open func referenceObject(for objectID: NSManagedObjectID) -> Any {
        references.reference(for: objectID) ?? NSNull()
    }

    // MARK: The contract (RequestExecutingStore)

    package func executeRequest(_ request: NSPersistentStoreRequest, in context: NSManagedObjectContext) throws -> Any {
        switch request {
        case let fetch as NSFetchRequest<NSFetchRequestResult>:
            let ids = lock.withLock { Array(nodes.keys) }
            return try InMemoryFetch(fetch).answer(candidates: ids, in: context)
        case let save as NSSaveChangesRequest:
            try write(save)
            return [Any]()
        default:
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError, "An atomic store runs fetch and save requests, not \(request.requestType).")
        }
    }

    /// Updates the nodes for a save, then writes them all.
    private func write(_ save: NSSaveChangesRequest) throws {
        let inserted = save.insertedObjects ?? []
        // New nodes first (empty), so that relationships between new objects find their nodes.
        let fresh = Set(inserted.map { NSAtomicStoreCacheNode(objectID: $0.objectID) })
        addCacheNodes(fresh)
        for object in inserted {
            if let node = cacheNode(for: object.objectID) { updateCacheNode(node, from: object) }
        }
        for object in save.updatedObjects ?? [] {
            if let node = cacheNode(for: object.objectID) { updateCacheNode(node, from: object) }
        }
        let gone = Set((save.deletedObjects ?? []).compactMap { cacheNode(for: $0.objectID) })
        if !gone.isEmpty {
            willRemoveCacheNodes(gone)
            lock.withLock { for node in gone { nodes[node.objectID] = nil } }
        }
        try self.save()
    }

    package func row(for objectID: NSManagedObjectID, in context: NSManagedObjectContext) throws -> StoreRow? {
        guard let node = cacheNode(for: objectID) else { return nil }
        return StoreRow(customStoreObject: objectID, version: 1) { property in
            let value = node.value(forKey: property.name)
            return (value as? NSAtomicStoreCacheNode)?.objectID ?? value
        }
    }

    package func destinationIDs(
        of relationship: NSRelationshipDescription, for objectID: NSManagedObjectID, in context: NSManagedObjectContext
    ) throws -> [NSManagedObjectID] {
        // A set or an ordered set of nodes, an array, or a single node.
        guard let value = cacheNode(for: objectID)?.value(forKey: relationship.name) else { return [] }
        return ManagedValueConversion.objects(value).compactMap { ($0 as? NSAtomicStoreCacheNode)?.objectID }
    }

    package func permanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        objects.map { objectID(for: $0.entity, withReferenceObject: newReferenceObject(for: $0)) }
    }

    package func didRegister(_ objectIDs: [NSManagedObjectID]) {}
}
