/// What an `NSBatchInsertRequest` returns in its result.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// `result` is `true` (an `NSNumber`) once the rows are inserted.
    case statusOnly = 0
    /// `result` is an `[NSManagedObjectID]` of the inserted (or, under a merge policy, updated) objects.
    case objectIDs = 1
    /// `result` is the number of inserted (or updated) objects (an `NSNumber`).
    case count = 2
}

/// A request that inserts many objects straight into the SQLite store, in one transaction,
/// without creating them in a context.
///
/// Values are attribute values by name (relationships are not set, as in Core Data); an
/// attribute left out takes its default value. No validation runs, but a value of the wrong
/// type refuses the whole request (`NSManagedObjectValidationError`) and nothing is inserted.
/// Primary keys are reserved from `Z_PRIMARYKEY` once for the whole request.
///
/// A row that breaks a uniqueness constraint is handled by the executing context's
/// `mergePolicy`, as in Core Data: `NSErrorMergePolicy` refuses the request
/// (`NSManagedObjectConstraintMergeError`); the object-trump and overwrite policies update the
/// existing row with every attribute of the new one; the store-trump and rollback policies keep
/// the existing row.
///
/// The handlers run inside the store's write transaction, on the thread that executes the
/// request: they must not save a context of the same store.
open class NSBatchInsertRequest: NSPersistentStoreRequest {
    private let storedEntityName: String
    private var storedEntity: NSEntityDescription?

    /// The name of the entity whose objects are inserted.
    open var entityName: String { storedEntityName }
    /// The entity whose objects are inserted; nil until the request runs for a request made from
    /// a name.
    open var entity: NSEntityDescription? { storedEntity }
    /// The objects to insert, as dictionaries of attribute name to value.
    open var objectsToInsert: [[String: Any]]?
    /// Called until it returns `true`: each call that returns `false` fills the dictionary it is
    /// given with one object's values.
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Called until it returns `true`: each call that returns `false` sets one object's values on
    /// the object it is given (an instance of the entity's class, in no context).
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What `result` holds: nothing but success (the default), the inserted IDs, or their count.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// Creates a request that inserts `dictionaries` as objects of the entity named `entityName`.
    ///
    /// - Parameters:
    ///   - entityName: The name of the entity, looked up in the model when the request runs.
    ///   - dictionaries: One dictionary per object, from attribute name to value.
    public init(entityName: String, objects dictionaries: [[String: Any]]) {
        storedEntityName = entityName
        objectsToInsert = dictionaries
        super.init()
    }

    /// Creates a request that inserts `dictionaries` as objects of `entity`.
    ///
    /// - Parameters:
    ///   - entity: The entity of the new objects.
    ///   - dictionaries: One dictionary per object, from attribute name to value.
    public init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        storedEntityName = entity.name ?? ""
        storedEntity = entity
        objectsToInsert = dictionaries
        super.init()
    }

    /// Creates a request that inserts objects of the entity named `entityName`, filled by
    /// `handler` one dictionary at a time until it returns `true`.
    ///
    /// - Parameters:
    ///   - entityName: The name of the entity, looked up in the model when the request runs.
    ///   - handler: Receives an empty mutable dictionary on each call. It fills it with one object's
    ///     attribute values and returns `false`, or returns `true` to stop; the dictionary of that
    ///     last call is not inserted.
    public convenience init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entityName: entityName, objects: [])
        objectsToInsert = nil
        dictionaryHandler = handler
    }

    /// Creates a request that inserts objects of `entity`, filled by `handler` one dictionary at a
    /// time until it returns `true`.
    ///
    /// - Parameters:
    ///   - entity: The entity of the new objects.
    ///   - handler: Receives an empty mutable dictionary on each call. It fills it with one object's
    ///     attribute values and returns `false`, or returns `true` to stop; the dictionary of that
    ///     last call is not inserted.
    public convenience init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entity: entity, objects: [])
        objectsToInsert = nil
        dictionaryHandler = handler
    }

    /// Creates a request that inserts objects of the entity named `entityName`, set up by
    /// `handler` one object at a time until it returns `true`.
    ///
    /// - Parameters:
    ///   - entityName: The name of the entity, looked up in the model when the request runs.
    ///   - handler: Receives an object of the entity's class, in no context, on each call. It sets
    ///     the object's attributes and returns `false`, or returns `true` to stop; the object of
    ///     that last call is not inserted.
    public convenience init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entityName: entityName, objects: [])
        objectsToInsert = nil
        managedObjectHandler = handler
    }

    /// Creates a request that inserts objects of `entity`, set up by `handler` one object at a
    /// time until it returns `true`.
    ///
    /// - Parameters:
    ///   - entity: The entity of the new objects.
    ///   - handler: Receives an object of the entity's class, in no context, on each call. It sets
    ///     the object's attributes and returns `false`, or returns `true` to stop; the object of
    ///     that last call is not inserted.
    public convenience init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entity: entity, objects: [])
        objectsToInsert = nil
        managedObjectHandler = handler
    }

    override open var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    override open var description: String {
        "<NSBatchInsertRequest> (entity: \(entityName); \(objectsToInsert.map { "\($0.count) objects" } ?? "handler"); resultType: \(resultType.rawValue))"
    }
}

extension NSBatchInsertRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let (entity, stores) = try context.batchTarget(self, entity: storedEntity, entityName: storedEntityName, kind: "NSBatchInsertRequest")
        storedEntity = entity
        guard !entity.isAbstract else {
            throw CoreDataError.make(
                NSCoreDataError, "An NSBatchInsertRequest can't insert objects of the abstract entity \(entity.name ?? "?").")
        }
        let source: BatchInsertRows.Source
        if let managedObjectHandler {
            source = .objects(managedObjectHandler)
        } else if let dictionaryHandler {
            source = .dictionaryHandler(dictionaryHandler)
        } else {
            source = .dictionaries(objectsToInsert ?? [])
        }
        // A handler's rows can be read only once: they go to the first store that holds the entity.
        var insert = StoreBatchInsert(
            entity: entity, rows: BatchInsertRows(entity: entity, source: source),
            policy: (context.mergePolicy as? NSMergePolicy)?.mergeType ?? .errorMergePolicyType, result: storeResult)
        insert.writer = HistoryAuthor(of: context)
        let outcome = try stores[0].executeBatchInsert(insert)
        let result: Any
        switch resultType {
        case .statusOnly: result = NSNumber(value: true)
        case .objectIDs: result = outcome.objectIDs
        case .count: result = NSNumber(value: outcome.count)
        }
        return NSBatchInsertResult(result: result, resultType: resultType)
    }

    private var storeResult: StoreBatchResultKind {
        switch resultType {
        case .statusOnly: .status
        case .objectIDs: .objectIDs
        case .count: .count
        }
    }
}
