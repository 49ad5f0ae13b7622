/// A type a fetch request can return: managed objects, object IDs, dictionaries or counts.
public protocol NSFetchRequestResult: AnyObject {}

extension NSNumber: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}

/// What a fetch request returns.
public struct NSFetchRequestResultType: OptionSet, Sendable {
    public let rawValue: UInt
    /// Creates a result type from Core Data's raw value.
    ///
    /// - Parameter rawValue: 0 for managed objects, 1 for object IDs, 2 for dictionaries, 4 for a count.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// `NSManagedObjectID`s.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of property values.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// A single `NSNumber`: the number of matching objects.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// A description of which objects to fetch: an entity, a predicate, an order, limits.
///
/// `ResultType` is unconstrained (Core Data constrains it to `NSFetchRequestResult`) because on
/// Linux a protocol does not conform to itself, and `NSFetchRequest<NSFetchRequestResult>` must compile.
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, NSCopying {
    /// The entity to fetch; set directly or found from `entityName` when the request runs.
    open var entity: NSEntityDescription?
    private var storedEntityName: String?
    /// The name of the entity to fetch.
    open var entityName: String? { storedEntityName ?? entity?.name }
    /// Which objects to return; nil returns all.
    open var predicate: NSPredicate?
    /// The order of the results; nil means undefined order.
    open var sortDescriptors: [NSSortDescriptor]?
    /// The most objects to return; 0 means no limit.
    open var fetchLimit: Int = 0
    /// How many matching objects to skip.
    open var fetchOffset: Int = 0
    /// When non-zero, the result is filled in batches of this size as it is accessed.
    open var fetchBatchSize: Int = 0
    /// Whether objects of subentities match too.
    open var includesSubentities: Bool = true
    /// Whether unsaved changes of the context are taken into account.
    open var includesPendingChanges: Bool = true
    /// Whether property values are read with the rows, or only object IDs.
    open var includesPropertyValues: Bool = true
    /// Whether returned objects are faults (filled on first access) rather than filled objects.
    open var returnsObjectsAsFaults: Bool = true
    /// Whether objects already in the context are updated with the fetched values.
    open var shouldRefreshRefetchedObjects: Bool = false
    /// Relationship key paths whose destinations are fetched along with the results.
    open var relationshipKeyPathsForPrefetching: [String]?
    /// Objects, object IDs, dictionaries or a count.
    open var resultType: NSFetchRequestResultType = .managedObjectResultType
    /// For dictionary results: the properties (names or descriptions) to return.
    open var propertiesToFetch: [Any]?
    /// For dictionary results: the properties to group by.
    open var propertiesToGroupBy: [Any]?
    /// For dictionary results with grouping: which groups to keep.
    open var havingPredicate: NSPredicate?
    /// For dictionary results: whether duplicate dictionaries are removed.
    open var returnsDistinctResults: Bool = false

    /// Creates a request with no entity.
    override public init() { super.init() }

    /// Creates a request for the entity named `entityName`.
    ///
    /// - Parameter entityName: The name of the entity to fetch, looked up in the context's model when
    ///   the request runs.
    public convenience init(entityName: String) {
        self.init()
        storedEntityName = entityName
    }

    override open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// A request with the same entity, predicate, order and options (the arrays are copied; the
    /// predicate and descriptors, immutable, are shared).
    ///
    /// - Parameter zone: Ignored; kept for `NSCopying`.
    /// - Returns: A new `NSFetchRequest` of the same result type, configured as this one.
    open func copy(with zone: NSZone? = nil) -> Any { copy(as: ResultType.self) }

    /// This request as a request of another result type, configured the same: how a custom
    /// store receives every fetch, as `NSFetchRequest<NSFetchRequestResult>` (Apple's generics
    /// are erased at run time; Swift's are not, so the store gets a copy).
    func copy<Other>(as other: Other.Type) -> NSFetchRequest<Other> {
        let copy = NSFetchRequest<Other>()
        copy.entity = entity
        copy.storedEntityName = storedEntityName
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.includesPropertyValues = includesPropertyValues
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.resultType = resultType
        copy.propertiesToFetch = propertiesToFetch
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.returnsDistinctResults = returnsDistinctResults
        copy.affectedStores = affectedStores
        return copy
    }

    override open var description: String {
        "<NSFetchRequest> (entity: \(entityName ?? "nil"); predicate: (\(predicate.map { "\($0)" } ?? "nil")); sortDescriptors: \(sortDescriptors?.count ?? 0); type: \(resultType.rawValue))"
    }

    /// Resolves the entity against `model`, naming it in the error when it is unknown.
    func resolvedEntity(in model: NSManagedObjectModel) throws -> NSEntityDescription {
        let entity = try namedEntity(in: model)
        // A request typed by a subclass (`NSFetchRequest<Item>`, `Item.fetchRequest()`) names the
        // class of its entity, which Linux cannot find by a bare `managedObjectClassName`: noting
        // it lets a program's first fetch hand out `Item`s before any was created.
        if let type = ResultType.self as? NSManagedObject.Type, type != NSManagedObject.self {
            _ = model.entity(for: type)
        }
        return entity
    }

    private func namedEntity(in model: NSManagedObjectModel) throws -> NSEntityDescription {
        if let entity {
            // An entity of another model loaded from the same file (`Item.fetchRequest()` names
            // the class's entity in the model loaded last) stands for this model's of its name.
            if let name = entity.name, let own = model.entitiesByName[name], own !== entity, own.versionHash == entity.versionHash {
                return own
            }
            return entity
        }
        guard let name = storedEntityName else {
            throw CoreDataError.make(NSCoreDataError, "A fetch request must have an entity.")
        }
        guard let entity = model.entitiesByName[name] else {
            throw CoreDataError.make(
                NSCoreDataError, "The model has no entity named '\(name)'.", userInfo: ["entityName": name])
        }
        return entity
    }
}
