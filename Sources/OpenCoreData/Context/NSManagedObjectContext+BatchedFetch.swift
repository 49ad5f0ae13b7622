/// Fetching a result a batch at a time (`BatchedFetchResult`).
extension NSManagedObjectContext {
    /// Runs `request` and returns its objects as a collection that makes them a batch at a time,
    /// as it is read, and lets the objects of passed batches go: the Linux form of a fetch with
    /// `fetchBatchSize` (a Swift array cannot fault its elements in).
    ///
    /// The keys of the matching rows are read now, in the request's order, with its predicate,
    /// sort descriptors, offset and limit; each batch's values are read when one of its indexes
    /// is first reached. Objects already registered in the context are returned as they are.
    ///
    /// - Parameter request: A request with `managedObjectResultType`; its `fetchBatchSize` is the
    ///   batch size (`BatchedFetchResult.defaultBatchSize` when 0).
    /// - Returns: The objects, a batch at a time.
    /// - Throws: The errors `fetch(_:)` throws; `NSCoreDataError` (134060) when the request's
    ///   result type is not `managedObjectResultType` or its entity's objects are not `T`.
    public func batchedFetch<T: NSManagedObject>(_ request: NSFetchRequest<T>) throws -> BatchedFetchResult<T> {
        assertOnQueue("batchedFetch(_:)")
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        let entity = try request.resolvedEntity(in: coordinator.managedObjectModel)
        guard request.resultType == .managedObjectResultType else {
            throw CoreDataError.make(NSCoreDataError, "batchedFetch(_:) returns managed objects: the request's resultType must be managedObjectResultType.")
        }
        let entities = request.includesSubentities ? [entity] + ModelLayoutBuilder.descendants(of: entity) : [entity]
        for fetched in entities where !(fetched.managedObjectClass is T.Type) {
            throw CoreDataError.make(
                NSCoreDataError, "The fetch request's result type does not match the objects of entity \(fetched.name ?? "?").")
        }
        let batchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : BatchedFetchResult<T>.defaultBatchSize
        if parent != nil || (request.includesPendingChanges && hasChanges) {
            // Pending changes are merged into a whole result (they decide which rows belong and
            // where), and a child context reads through its parent.
            let objects = try fetchObjects(request, entity: entity, coordinator: coordinator)
            return BatchedFetchResult(context: self, batchSize: batchSize, wholeResult: objects)
        }
        if !coordinator.executors(of: entity, among: request.affectedStores).isEmpty {
            // A custom store answers with objects, not keys to read a batch at a time by.
            return BatchedFetchResult(context: self, batchSize: batchSize, wholeResult: try fetch(request))
        }
        let storeQuery = query(for: request, entity: entity, propertyValues: false)
        var references: [ObjectReference] = []
        var sources: [any RowReadingStore] = []
        var starts: [Int] = []
        for store in try readers(for: request, entity: entity, coordinator: coordinator) {
            let found = try store.fetchReferences(storeQuery)
            guard !found.isEmpty else { continue }
            sources.append(store)
            starts.append(references.count)
            if references.isEmpty { references = found } else { references += found }
        }
        let source = BatchSource(
            references: references, stores: sources, storeStarts: starts, root: entity.layout!.root,
            entityNumbers: entities.map { Int32($0.layout!.entityNumber) },
            returnsObjectsAsFaults: request.returnsObjectsAsFaults, prefetching: request.relationshipKeyPathsForPrefetching ?? [])
        return BatchedFetchResult(context: self, batchSize: batchSize, source: source)
    }

    /// The objects of `source`'s references in `range`, in order, registered in this context:
    /// read in one query per store (or taken from `readAhead`), each a fault of its ID when its
    /// row is gone or cannot be read, so that a failed read leaves faults that report it when
    /// fired, not a crash.
    func objects(of source: BatchSource, at range: Range<Int>, readAhead: PendingRows?) -> [NSManagedObject] {
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(range.count)
        for (store, run) in source.storeRuns(range) {
            let keys = source.primaryKeys(run)
            var rows: [StoreRow]?
            if let readAhead, run == range {
                // Run here if the store's thread has not started it; wait for it otherwise.
                readAhead.runIfUnclaimed()
                rows = store.takeRows(readAhead)
            }
            if rows == nil { rows = try? store.rows(of: source.root, primaryKeys: keys) }
            var found = rows.take() ?? []
            let numbers = source.entityNumbers
            if found.contains(where: { !numbers.contains($0.entityNumber) }) { found.removeAll { !numbers.contains($0.entityNumber) } }
            var registered = registerRows(found, store: store, filling: !source.returnsObjectsAsFaults, refresh: false)
            if !source.prefetching.isEmpty {
                try? prefetch(source.prefetching, of: registered, entity: source.root, store: store)
            }
            if registered.count == keys.count, registered.indices.allSatisfy({ registered[$0].primaryKey == keys[$0] }) {
                // The usual case: every row, in the keys' order.
                if run == range { return registered }
                objects += registered
                continue
            }
            // Rows missing or in another order: each key finds its object, or a fault of its ID.
            let byKey = Dictionary(registered.map { ($0.primaryKey, $0) }, uniquingKeysWith: { first, _ in first })
            registered = []
            var lookup = EntityLookup(store: store)
            for reference in source.references[run] {
                objects.append(
                    byKey[reference.primaryKey]
                        ?? object(with: NSManagedObjectID(entity: lookup.entity(reference.entityNumber), store: store, primaryKey: reference.primaryKey)))
            }
        }
        return objects
    }
}
