/// What a batch request gives back besides doing its work, as a store sees it.
package enum StoreBatchResultKind {
    case status, count, objectIDs
}

/// What a store did for a batch request: how many rows it wrote or deleted, and their IDs when
/// the request asked for them.
package struct StoreBatchOutcome {
    package var count = 0
    package var objectIDs: [NSManagedObjectID] = []

    mutating func add(_ other: StoreBatchOutcome) {
        count += other.count
        objectIDs += other.objectIDs
    }

    package init(count: Int = 0, objectIDs: [NSManagedObjectID] = []) {
        self.count = count
        self.objectIDs = objectIDs
    }
}

/// An `NSBatchUpdateRequest` as a store runs it.
package struct StoreBatchUpdate {
    package let entity: NSEntityDescription
    package let predicate: NSPredicate?
    package let includesSubentities: Bool
    /// The new value of each attribute: a constant or an expression over the row.
    package let assignments: [(attribute: NSAttributeDescription, value: NSExpression)]
    package let result: StoreBatchResultKind
    /// Who runs it, for the store's persistent history.
    package var writer = HistoryAuthor()
}

/// An `NSBatchDeleteRequest` as a store runs it: the rows of a fetch, or of given primary keys.
package struct StoreBatchDelete {
    package let query: StoreQuery
    /// The keys of `init(objectIDs:)`, all of `query.entity`; nil for a fetch request.
    package let primaryKeys: [Int64]?
    package let result: StoreBatchResultKind
    /// Who runs it, for the store's persistent history.
    package var writer = HistoryAuthor()
}

/// An `NSBatchInsertRequest` as a store runs it.
package struct StoreBatchInsert {
    package let entity: NSEntityDescription
    /// The rows to insert, converted to slots as the store asks for them.
    package let rows: BatchInsertRows
    /// What a row that breaks a uniqueness constraint does: the executing context's merge policy.
    package let policy: NSMergePolicyType
    package let result: StoreBatchResultKind
    /// Who runs it, for the store's persistent history.
    package var writer = HistoryAuthor()
}

extension NSManagedObjectContext {
    /// The entity and stores a batch request runs against, after the checks every batch request
    /// shares: a root context on the coordinator's queue, an entity of the coordinator's model,
    /// and stores that run batch requests (Core Data's SQLite store; never the in-memory store).
    ///
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` (134091) in a child context or for
    ///   a store that cannot run batch requests; `NSCoreDataError` for an unknown entity.
    func batchTarget(
        _ request: NSPersistentStoreRequest, entity: NSEntityDescription?, entityName: String?, kind: String
    ) throws -> (entity: NSEntityDescription, stores: [any BatchRequestStore]) {
        let coordinator = try batchCoordinator(kind: kind)
        let model = coordinator.managedObjectModel
        let resolved: NSEntityDescription
        if let entity {
            // An entity of another model loaded from the same file (`Item.fetchRequest()` names
            // the class's entity in the model loaded last) stands for this model's of its name.
            guard let name = entity.name, let own = model.entitiesByName[name],
                own === entity || own.versionHash == entity.versionHash
            else {
                throw CoreDataError.make(
                    NSCoreDataError, "The entity \(entity.name ?? "nil") of the \(kind) is not in the coordinator's model.")
            }
            resolved = model.entitiesByName[entity.name!]!
        } else if let entityName, let found = model.entitiesByName[entityName] {
            resolved = found
        } else {
            throw CoreDataError.make(
                NSCoreDataError, "The model has no entity named '\(entityName ?? "nil")'.", userInfo: ["entityName": entityName ?? ""])
        }
        let stores = request.affectedStores ?? coordinator.persistentStores.filter { store in store.entities.contains { $0 === resolved } }
        guard !stores.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "No persistent store of the coordinator holds entity \(resolved.name ?? "?").")
        }
        let runners = try stores.map { store in
            guard let runner = coordinator.batchRunner(of: store) else {
                throw CoreDataError.make(
                    NSPersistentStoreUnsupportedRequestTypeError,
                    "The store of type '\(store.type)' can't execute an \(kind): its store type does not run batch requests (Core Data runs them only in SQLite stores).",
                    userInfo: [NSAffectedStoresErrorKey: [store]])
            }
            return runner
        }
        return (resolved, runners)
    }

    /// The coordinator of a root context, for a batch request executed on the context's queue.
    ///
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` (134091) in a child context.
    func batchCoordinator(kind: String) throws -> NSPersistentStoreCoordinator {
        assertOnQueue("execute(_:)")
        guard parent == nil else {
            // Core Data's child contexts cannot run batch requests either; failing loudly is the
            // fix for the silent empty result users hit elsewhere.
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "A child context can't execute an \(kind): batch requests work on the store directly. Execute it in a context that has the persistent store coordinator and no parent.")
        }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator to execute an \(kind).")
        }
        return coordinator
    }
}
