/// What an `NSBatchDeleteRequest` returns in its result.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// `result` is `true` (an `NSNumber`) once the rows are deleted.
    case resultTypeStatusOnly = 0
    /// `result` is an `[NSManagedObjectID]` of the deleted objects.
    case resultTypeObjectIDs = 1
    /// `result` is the number of deleted objects (an `NSNumber`).
    case resultTypeCount = 2
}

/// A request that deletes the objects a fetch request matches, or given objects, straight in the
/// SQLite store, without loading them into memory.
///
/// The whole request is one transaction and leaves no dangling reference: the delete rules of
/// the deleted objects' relationships are followed in SQL (cascade deletes the destinations too;
/// deny refuses the whole request with `NSValidationRelationshipDeniedDeleteError` when a
/// destination would survive), to-one columns that pointed at a deleted row are cleared (and the
/// version of their rows rises), and many-to-many join rows are removed. The context is not told:
/// merge the returned IDs with `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`
/// under `NSDeletedObjectsKey`.
open class NSBatchDeleteRequest: NSPersistentStoreRequest {
    /// The fetch request that chooses the objects to delete: its entity, predicate,
    /// `includesSubentities`, and (with a sort) `fetchLimit` and `fetchOffset`.
    public let fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// The objects of `init(objectIDs:)`.
    let objectIDs: [NSManagedObjectID]?
    /// What `result` holds: nothing but success (the default), the deleted IDs, or their count.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

    /// Creates a request that deletes the objects `fetch` matches.
    ///
    /// - Parameter fetch: The fetch request that chooses the objects: its entity, predicate,
    ///   `includesSubentities`, and with sort descriptors its `fetchLimit` and `fetchOffset`.
    public init(fetchRequest fetch: NSFetchRequest<NSFetchRequestResult>) {
        fetchRequest = fetch
        objectIDs = nil
        super.init()
    }

    /// Creates a request that deletes `fetch`'s objects, for a fetch request of another result
    /// type: an OpenCoreData addition, since Swift on Linux cannot cast `NSFetchRequest<T>` to
    /// `NSFetchRequest<NSFetchRequestResult>` as Apple's platforms do.
    ///
    /// - Parameter fetch: The fetch request that chooses the objects. Its entity (or entity name),
    ///   predicate, sort descriptors, limits, `includesSubentities` and `affectedStores` are copied
    ///   into a new request; later changes to `fetch` do not reach this one.
    @_disfavoredOverload
    public convenience init<ResultType>(fetchRequest fetch: NSFetchRequest<ResultType>) {
        let request = fetch.entityName.map { NSFetchRequest<NSFetchRequestResult>(entityName: $0) } ?? NSFetchRequest<NSFetchRequestResult>()
        request.entity = fetch.entity
        request.predicate = fetch.predicate
        request.sortDescriptors = fetch.sortDescriptors
        request.fetchLimit = fetch.fetchLimit
        request.fetchOffset = fetch.fetchOffset
        request.includesSubentities = fetch.includesSubentities
        request.affectedStores = fetch.affectedStores
        self.init(fetchRequest: request)
    }

    /// Creates a request that deletes the objects with these IDs, which must all be of one entity.
    ///
    /// - Parameter objects: The IDs of the objects to delete; the first one's entity becomes the
    ///   request's entity.
    public init(objectIDs objects: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = objects.first?.entity
        fetchRequest = request
        objectIDs = objects
        super.init()
    }

    override open var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    override open var description: String {
        "<NSBatchDeleteRequest> (entity: \(fetchRequest.entityName ?? "nil"); \(objectIDs.map { "\($0.count) object IDs" } ?? "predicate: (\(fetchRequest.predicate.map { "\($0)" } ?? "nil"))"); resultType: \(resultType.rawValue))"
    }
}

extension NSBatchDeleteRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let kind = "NSBatchDeleteRequest"
        if let objectIDs, objectIDs.isEmpty {
            // Nothing to delete, and no entity to check: an empty result, as for a fetch matching nothing.
            _ = try context.batchCoordinator(kind: kind)
            return makeResult(StoreBatchOutcome())
        }
        if fetchRequest.affectedStores != nil, affectedStores == nil { affectedStores = fetchRequest.affectedStores }
        let (entity, stores) = try context.batchTarget(self, entity: fetchRequest.entity, entityName: fetchRequest.entityName, kind: kind)
        var outcome = StoreBatchOutcome()
        if let objectIDs {
            for (store, keys) in try keysByStore(objectIDs, entity: entity, stores: stores) {
                var delete = StoreBatchDelete(query: query(entity), primaryKeys: keys, result: storeResult)
                delete.writer = HistoryAuthor(of: context)
                outcome.add(try store.executeBatchDelete(delete))
            }
        } else {
            var delete = StoreBatchDelete(query: query(entity), primaryKeys: nil, result: storeResult)
            delete.writer = HistoryAuthor(of: context)
            for store in stores { outcome.add(try store.executeBatchDelete(delete)) }
        }
        return makeResult(outcome)
    }

    private func makeResult(_ outcome: StoreBatchOutcome) -> NSBatchDeleteResult {
        let result: Any
        switch resultType {
        case .resultTypeStatusOnly: result = NSNumber(value: true)
        case .resultTypeObjectIDs: result = outcome.objectIDs
        case .resultTypeCount: result = NSNumber(value: outcome.count)
        }
        return NSBatchDeleteResult(result: result, resultType: resultType)
    }

    private var storeResult: StoreBatchResultKind {
        switch resultType {
        case .resultTypeStatusOnly: .status
        case .resultTypeObjectIDs: .objectIDs
        case .resultTypeCount: .count
        }
    }

    private func query(_ entity: NSEntityDescription) -> StoreQuery {
        if objectIDs != nil {
            return StoreQuery(
                entity: entity, predicate: nil, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0,
                includesSubentities: true, includesPropertyValues: false)
        }
        return StoreQuery(
            entity: entity, predicate: fetchRequest.predicate, sortDescriptors: fetchRequest.sortDescriptors ?? [],
            fetchLimit: fetchRequest.fetchLimit, fetchOffset: fetchRequest.fetchOffset,
            includesSubentities: fetchRequest.includesSubentities, includesPropertyValues: false)
    }

    /// The primary keys of `ids` grouped by their store.
    ///
    /// - Throws: `NSCoreDataError` when the IDs are of several entities, or one is temporary (its
    ///   object was never saved) or of a store the request does not run against.
    private func keysByStore(
        _ ids: [NSManagedObjectID], entity: NSEntityDescription, stores: [any BatchRequestStore]
    ) throws -> [(any BatchRequestStore, [Int64])] {
        var groups: [(any BatchRequestStore, [Int64])] = stores.map { ($0, []) }
        for id in ids {
            guard id.entity === entity else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "The object IDs of an NSBatchDeleteRequest must all be of one entity: \(entity.name ?? "?") and \(id.entity.name ?? "?") were given.",
                    userInfo: [NSAffectedObjectsErrorKey: [id]])
            }
            guard !id.isTemporaryID, let store = id.persistentStore, let index = groups.firstIndex(where: { $0.0 === store }) else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "The NSBatchDeleteRequest can't delete \(id): \(id.isTemporaryID ? "its object was never saved" : "it is not in a store of the request").",
                    userInfo: [NSAffectedObjectsErrorKey: [id]])
            }
            groups[index].1.append(id.primaryKey)
        }
        return groups.filter { !$0.1.isEmpty }
    }
}
