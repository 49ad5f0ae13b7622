/// What an `NSBatchUpdateRequest` returns in its result.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// `result` is `true` (an `NSNumber`) once the update is done.
    case statusOnlyResultType = 0
    /// `result` is an `[NSManagedObjectID]` of the updated objects.
    case updatedObjectIDsResultType = 1
    /// `result` is the number of updated objects (an `NSNumber`).
    case updatedObjectsCountResultType = 2
}

/// A request that changes attributes of every object matching a predicate straight in the SQLite
/// store, in one SQL `UPDATE`, without loading any object into memory.
///
/// The context is not told: bring it up to date with the returned IDs (refresh each object, or
/// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`). Each updated row's
/// version rises, so an object a context still holds with the old values conflicts on its next
/// save instead of silently writing over the update. As in Core Data, no validation runs.
///
/// ```swift
/// let request = NSBatchUpdateRequest(entityName: "TSPItem")
/// request.predicate = NSPredicate(format: "done == NO")
/// request.propertiesToUpdate = ["done": true]
/// request.resultType = .updatedObjectIDsResultType
/// let result = try context.execute(request) as! NSBatchUpdateResult
/// ```
open class NSBatchUpdateRequest: NSPersistentStoreRequest {
    private let storedEntityName: String
    private var storedEntity: NSEntityDescription?

    /// The name of the entity whose objects are updated.
    open var entityName: String { storedEntityName }
    /// The entity whose objects are updated. For a request made with `init(entityName:)` it is nil
    /// until the request has run (Core Data resolves it against the store's model then, too).
    open var entity: NSEntityDescription! { storedEntity }
    /// Which objects to update; nil updates every object of the entity.
    open var predicate: NSPredicate?
    /// Whether objects of subentities are updated too (true by default).
    open var includesSubentities: Bool = true
    /// What `result` holds: nothing but success (the default), the updated IDs, or their count.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// The new values, by attribute name (`String`) or `NSPropertyDescription`: constants, or
    /// `NSExpression`s evaluated for each row over its own attributes, such as
    /// `NSExpression(format: "count + 1")` or a `TERNARY` / `NSExpression(forConditional:…)`.
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// Creates a request that updates objects of the entity named `entityName`.
    ///
    /// - Parameter entityName: The name of the entity, looked up in the model when the request runs.
    public init(entityName: String) {
        storedEntityName = entityName
        super.init()
    }

    /// Creates a request that updates objects of `entity`.
    ///
    /// - Parameter entity: The entity whose objects are updated (with its subentities' unless
    ///   `includesSubentities` is turned off).
    public init(entity: NSEntityDescription) {
        storedEntityName = entity.name ?? ""
        storedEntity = entity
        super.init()
    }

    override open var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    override open var description: String {
        "<NSBatchUpdateRequest> (entity: \(entityName); predicate: (\(predicate.map { "\($0)" } ?? "nil")); propertiesToUpdate: \(propertiesToUpdate?.count ?? 0); resultType: \(resultType.rawValue))"
    }
}

extension NSBatchUpdateRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let (entity, stores) = try context.batchTarget(self, entity: storedEntity, entityName: storedEntityName, kind: "NSBatchUpdateRequest")
        storedEntity = entity
        var update = StoreBatchUpdate(
            entity: entity, predicate: predicate, includesSubentities: includesSubentities,
            assignments: try assignments(of: entity), result: storeResult)
        update.writer = HistoryAuthor(of: context)
        var outcome = StoreBatchOutcome()
        for store in stores { outcome.add(try store.executeBatchUpdate(update)) }
        let result: Any
        switch resultType {
        case .statusOnlyResultType: result = NSNumber(value: true)
        case .updatedObjectIDsResultType: result = outcome.objectIDs
        case .updatedObjectsCountResultType: result = NSNumber(value: outcome.count)
        }
        return NSBatchUpdateResult(result: result, resultType: resultType)
    }

    private var storeResult: StoreBatchResultKind {
        switch resultType {
        case .statusOnlyResultType: .status
        case .updatedObjectIDsResultType: .objectIDs
        case .updatedObjectsCountResultType: .count
        }
    }

    /// `propertiesToUpdate` resolved against the model: stored attributes of the entity (or of
    /// one of its superentities), each with its new value as an expression.
    ///
    /// - Throws: `NSCoreDataError` for a key the entity does not have, a relationship or a
    ///   transient attribute, or an empty dictionary.
    private func assignments(of entity: NSEntityDescription) throws -> [(attribute: NSAttributeDescription, value: NSExpression)] {
        guard let properties = propertiesToUpdate, !properties.isEmpty else {
            throw CoreDataError.make(
                NSCoreDataError, "An NSBatchUpdateRequest needs propertiesToUpdate: the attributes to change and their new values.")
        }
        var result: [(attribute: NSAttributeDescription, value: NSExpression)] = []
        for (key, value) in properties {
            let name = (key.base as? NSPropertyDescription)?.name ?? key.base as? String ?? "\(key.base)"
            guard let property = entity.propertiesByName[name] else {
                throw CoreDataError.make(
                    NSCoreDataError, "The entity \(entity.name ?? "?") has no property named '\(name)' to update.",
                    userInfo: ["entity": entity.name ?? "", "key": name])
            }
            guard let attribute = property as? NSAttributeDescription, !attribute.isTransient else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "A batch update changes stored attributes only; '\(name)' of entity \(entity.name ?? "?") is \(property is NSRelationshipDescription ? "a relationship" : "transient").",
                    userInfo: ["entity": entity.name ?? "", "key": name])
            }
            guard !(attribute is NSCompositeAttributeDescription) else {
                throw CoreDataError.make(
                    NSPersistentStoreUnsupportedRequestTypeError,
                    "A batch update does not set the composite attribute '\(name)' of entity \(entity.name ?? "?"): change it through managed objects.",
                    userInfo: ["entity": entity.name ?? "", "key": name])
            }
            result.append((attribute, value as? NSExpression ?? NSExpression(forConstantValue: value)))
        }
        // A fixed order of columns, whatever the dictionary's order: the same request makes the
        // same SQL every time.
        return result.sorted { $0.attribute.slot < $1.attribute.slot }
    }
}
