/// Fetching, counting and faulting.
extension NSManagedObjectContext {
    /// Runs `request` and returns its results: managed objects, object IDs, dictionaries or a
    /// count, as the request's `resultType` says.
    ///
    /// Objects are uniqued: an object already registered in the context is returned as it is
    /// (with its unsaved changes); others come back as faults that fill from the fetched row
    /// without another query. With `includesPendingChanges`, matching inserted objects are added,
    /// deleted ones left out and updated ones judged by their current values, all sorted exactly
    /// as the store sorts.
    ///
    /// - Parameter request: The fetch request: its entity (or entity name), predicate, sort
    ///   descriptors, limits and `resultType`.
    /// - Returns: The results in the request's sort order: managed objects registered in this
    ///   context, their object IDs, `NSDictionary` rows, or a single `NSNumber` holding the count.
    /// - Throws: an `NSError` naming the entity or key the model does not know, or a store error.
    ///   In `NSCocoaErrorDomain`: `NSCoreDataError` (134060) when the context has no coordinator,
    ///   the request has no entity, the model has no entity of that name, a key path is unknown, or
    ///   the results do not fit the result type `T`; `NSPersistentStoreUnsupportedRequestTypeError`
    ///   (134091) for a predicate or sort descriptor the store can't translate. A failed read of the
    ///   SQLite file is passed on as the store reports it.
    /// - Complexity: O(n) in the number of rows returned, plus the sort when pending inserts are
    ///   merged into a sorted result.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        assertOnQueue("fetch(_:)")
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        if parent == nil, let generation = try generationToEnter() {
            return try QueryGenerationScope.$token.withValue(generation) { try fetch(request) }
        }
        let entity = try request.resolvedEntity(in: coordinator.managedObjectModel)
        if parent == nil, case let executors = coordinator.executors(of: entity, among: request.affectedStores), !executors.isEmpty {
            return try fetch(request, entity: entity, through: executors, coordinator: coordinator)
        }
        if request.resultType == .countResultType {
            return [NSNumber(value: try count(for: request)) as! T]
        }
        if request.resultType == .dictionaryResultType {
            return try fetchDictionaries(request, entity: entity, coordinator: coordinator)
        }
        if request.resultType == .managedObjectIDResultType, parent == nil, !(request.includesPendingChanges && hasChanges) {
            // IDs straight from the rows, as Core Data returns them: no object is made or
            // registered. With pending changes, the objects path below merges them in.
            let ids = try fetchObjectIDs(request, entity: entity, coordinator: coordinator)
            if T.self == NSManagedObjectID.self { return unsafeBitCast(ids, to: [T].self) }
            return ids as? [T] ?? ids.map { $0 as! T }
        }
        let objects = try fetchObjects(request, entity: entity, coordinator: coordinator)
        if request.resultType == .managedObjectIDResultType {
            return objects.map { $0.objectID as! T }
        }
        guard let typed: [T] = Self.typedObjects(objects) else {
            throw CoreDataError.make(
                NSCoreDataError, "The fetch request's result type does not match the objects of entity \(entity.name ?? "?").")
        }
        return typed
    }

    /// `objects` as `[T]`, or nil when one is not a `T`. An array of a subclass of
    /// `NSManagedObject` holds the same references as `objects`, so when every object is a `T`
    /// (checked once per class met, not per object) the array itself is the result: `as? [T]`
    /// would cast, retain and copy each of a million results.
    static func typedObjects<T>(_ objects: [NSManagedObject]) -> [T]? {
        if T.self == NSManagedObject.self { return unsafeBitCast(objects, to: [T].self) }
        guard T.self is NSManagedObject.Type else { return objects as? [T] }
        var checked: ObjectIdentifier?
        for object in objects {
            let objectClass = ObjectIdentifier(Swift.type(of: object))
            if objectClass == checked { continue }
            guard object is T else { return nil }
            checked = objectClass
        }
        return unsafeBitCast(objects, to: [T].self)
    }

    /// Dictionary results, computed by the stores from what they hold: as in Core Data, pending
    /// changes of the context are not taken into account.
    private func fetchDictionaries<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator
    ) throws -> [T] {
        let fetch = try DictionaryFetch(request, entity: entity)
        var results: [T] = []
        for store in try readers(for: request, entity: entity, coordinator: coordinator) {
            for dictionary in try store.fetchDictionaries(query(for: request, entity: entity, propertyValues: true), fetch) {
                guard let typed = NSDictionary(dictionary: dictionary) as? T else {
                    throw CoreDataError.make(
                        NSCoreDataError, "A fetch request with dictionaryResultType must have NSDictionary or NSFetchRequestResult results.")
                }
                results.append(typed)
            }
        }
        return results
    }

    /// The number of objects `request` would return.
    ///
    /// - Parameter request: The fetch request to count; its sort descriptors do not matter. With
    ///   `includesPendingChanges` and unsaved changes in the context, those changes are counted too.
    /// - Returns: How many objects a fetch with `request` would return.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain`: `NSCoreDataError` (134060) when the context
    ///   has no coordinator, the request has no entity, the model has no entity of that name or a
    ///   key path is unknown; `NSPersistentStoreUnsupportedRequestTypeError` (134091) for a
    ///   predicate the store can't translate. A failed read of the SQLite file is passed on as the
    ///   store reports it.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        if parent == nil, let generation = try generationToEnter() {
            return try QueryGenerationScope.$token.withValue(generation) { try count(for: request) }
        }
        let entity = try request.resolvedEntity(in: coordinator.managedObjectModel)
        if parent == nil, case let executors = coordinator.executors(of: entity, among: request.affectedStores), !executors.isEmpty {
            let counting = request.copy(as: NSNumber.self)
            counting.resultType = .countResultType
            return try fetch(counting, entity: entity, through: executors, coordinator: coordinator).first?.intValue ?? 0
        }
        let pending = request.includesPendingChanges && hasChanges
        if pending || parent != nil {
            return try fetchObjects(request, entity: entity, coordinator: coordinator).count
        }
        var total = 0
        for store in try readers(for: request, entity: entity, coordinator: coordinator) {
            total += try store.countRows(query(for: request, entity: entity, propertyValues: false))
        }
        return total
    }

    /// `store` as the context's coordinator hands it out for reading.
    ///
    /// - Throws: `NSCoreDataError` without a coordinator; the coordinator's error for a store
    ///   that does not read.
    func reader(of store: NSPersistentStore) throws -> any RowReadingStore {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        return try coordinator.reader(of: store)
    }

    /// The stores `request` reads for `entity`, as the coordinator hands them out for reading.
    func readers<T>(
        for request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator
    ) throws -> [any RowReadingStore] {
        try coordinator.readers(of: entity, among: request.affectedStores)
    }

    func query<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription, propertyValues: Bool) -> StoreQuery {
        StoreQuery(
            entity: entity, predicate: request.predicate, sortDescriptors: request.sortDescriptors ?? [],
            fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset,
            includesSubentities: request.includesSubentities, includesPropertyValues: propertyValues)
    }

    private func fetchObjectIDs<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator
    ) throws -> [NSManagedObjectID] {
        let storeQuery = query(for: request, entity: entity, propertyValues: false)
        var ids: [NSManagedObjectID] = []
        for store in try readers(for: request, entity: entity, coordinator: coordinator) {
            let found = try store.fetchObjectIDs(storeQuery)
            if ids.isEmpty { ids = found } else { ids += found }
        }
        return ids
    }

    func fetchObjects<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator,
        ignoringLimits: Bool = false
    ) throws -> [NSManagedObject] {
        let pending = (request.includesPendingChanges && hasChanges) || ignoringLimits
        // Batches need a result in the store's order; merging pending changes reads every value.
        let batching = request.fetchBatchSize > 0 && !pending && request.resultType == .managedObjectResultType && parent == nil
        var storeQuery = query(
            for: request, entity: entity,
            propertyValues: request.includesPropertyValues && request.resultType != .managedObjectIDResultType && !batching)
        if pending {
            // Limits apply after pending changes are merged in.
            storeQuery.fetchLimit = 0
            storeQuery.fetchOffset = 0
        }
        var objects: [NSManagedObject] = []
        if let parent {
            objects = try fetchThroughParent(parent, request: request, entity: entity, ignoringLimits: pending)
        }
        let prefetching = request.resultType == .managedObjectResultType ? request.relationshipKeyPathsForPrefetching ?? [] : []
        let refresh = request.shouldRefreshRefetchedObjects
        for store in parent == nil ? try readers(for: request, entity: entity, coordinator: coordinator) : [] {
            var fetched: [NSManagedObject] = []
            // Registration runs chunk by chunk while the store reads the next rows, inside its
            // read, where `awakeFromFetch` (the subclass's code, which may read the store) must
            // not run: it runs once the read is over. Objects asked for filled take their values
            // as they are made, while they are in the cache: filling them in a pass of its own
            // after the read cost 80 ns an object (perf, fetch-all of a million rows). With
            // prefetching, they stay faults until the related objects are in.
            let fillsAtOnce = !request.returnsObjectsAsFaults && !batching && prefetching.isEmpty
            var registrar = RowRegistrar(store: store, filling: fillsAtOnce, awakening: .afterRead, refresh: refresh)
            // A sorted fetch's rows come in the query's order before objects are made of them,
            // so that the objects lie in memory in the order of the array the app holds: filling
            // and letting go of them (each deinitializing as the array goes) walk memory forward.
            do {
                try store.fetchRows(storeQuery) { rows in registerRows(&rows, with: &registrar, into: &fetched) }
            } catch {
                // The objects made so far stay registered: those already filled are owed their
                // `awakeFromFetch` as much as after a read that succeeds.
                if fillsAtOnce { finishFilling(fetched, firingFaults: false) }
                throw error
            }
            if batching {
                assignBatches(fetched, size: request.fetchBatchSize, entity: entity, prefetching: prefetching)
            } else if fillsAtOnce {
                finishFilling(fetched)
            } else {
                if !prefetching.isEmpty { try prefetch(prefetching, of: fetched, entity: entity, store: store) }
                if !request.returnsObjectsAsFaults { finishFilling(fetched) }
            }
            if objects.isEmpty { objects = fetched } else { objects += fetched }
        }
        guard pending else { return objects }
        if request.includesPendingChanges && hasChanges {
            objects = mergePendingChanges(into: objects, request: request, entity: entity)
        }
        if ignoringLimits { return objects }
        if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
        return objects
    }

    /// The store's results as the context sees them: deleted objects left out, updated objects
    /// kept or added by their current values, matching inserted objects added, all in the order
    /// the store would return them once saved.
    func mergePendingChanges<T>(
        into fetched: [NSManagedObject], request: NSFetchRequest<T>, entity: NSEntityDescription
    ) -> [NSManagedObject] {
        let numbers = Set(request.includesSubentities ? entity.layout!.hierarchyNumbers : [entity.layout!.entityNumber])
        let stores = request.affectedStores.map { Set($0.map(ObjectIdentifier.init)) }
        func candidate(_ object: NSManagedObject) -> Bool {
            guard numbers.contains(object.entity.layout!.entityNumber) else { return false }
            guard let stores, let store = object.store else { return true }
            return stores.contains(ObjectIdentifier(store))
        }
        func matches(_ object: NSManagedObject) -> Bool { request.predicate?.evaluate(with: object) ?? true }
        var merged: [NSManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for object in fetched where !object.isDeleted {
            // The store matched the saved values; an updated object is judged by its current ones.
            if object.isUpdated, !matches(object) { continue }
            merged.append(object)
            seen.insert(ObjectIdentifier(object))
        }
        let updated = updatedObjects.filter { $0.isUpdated && !$0.isInserted && !$0.isDeleted && candidate($0) }
        for object in updated.sorted(by: { $0.primaryKey < $1.primaryKey }) {
            if !seen.contains(ObjectIdentifier(object)), matches(object) { merged.append(object) }
        }
        let inserted = liveInserted
        for object in inserted where candidate(object) && matches(object) { merged.append(object) }
        guard let descriptors = request.sortDescriptors, !descriptors.isEmpty else { return merged }
        // Ties come out as the store returns them: by primary key, which unsaved objects receive
        // at save in insertion order, after every saved row.
        let insertionIndex = Dictionary(uniqueKeysWithValues: inserted.enumerated().map { (ObjectIdentifier($1), $0) })
        func tieKey(_ object: NSManagedObject) -> (Int, Int64, Int) {
            (object.hasTemporaryID ? 1 : 0, object.primaryKey, insertionIndex[ObjectIdentifier(object)] ?? 0)
        }
        return merged.sorted { a, b in
            let order = descriptors.compare(a, b)
            return order == .orderedSame ? tieKey(a) < tieKey(b) : order == .orderedAscending
        }
    }

    /// The context's object for a fetched row: the registered one, or a new fault carrying the
    /// row's values.
    func register(
        row: StoreRow, entity: NSEntityDescription? = nil, objectClass: NSManagedObject.Type? = nil, root: Int32? = nil,
        store: NSPersistentStore, refresh: Bool
    ) -> NSManagedObject {
        let (object, isNew) = registerUnfilled(row: row, entity: entity, objectClass: objectClass, root: root, store: store)
        if !isNew {
            var row = row
            update(object, from: &row, refresh: refresh)
        }
        return object
    }

    /// `register(row:…)` without giving a registered object the row's values: under the
    /// registry's lock, where nothing may release objects, the caller does that afterwards.
    func registerUnfilled(
        row: StoreRow, entity: NSEntityDescription? = nil, objectClass: NSManagedObject.Type? = nil, root: Int32? = nil,
        store: NSPersistentStore
    ) -> (object: NSManagedObject, isNew: Bool) {
        let entity = entity ?? store.entity(number: row.entityNumber)!
        let key = ObjectKey(
            store: ObjectIdentifier(store), root: root ?? Int32(entity.layout!.root.layout!.entityNumber),
            primaryKey: row.primaryKey, temporary: nil)
        let token = self.token!
        return registry.object(for: key) {
            // Joined to the token before it is registered: the token's registry is the one it
            // leaves when it goes.
            let object = NSManagedObject.materialize(
                entity: entity, store: .passUnretained(store), primaryKey: row.primaryKey, version: row.version,
                objectClass: objectClass, token: .passUnretained(token))
            object.cachedRow = row.values
            return object
        }
    }

    /// Fills a fault from its parent context's view of it, from its store with its whole batch
    /// when it came from a fetch with `fetchBatchSize`, or from its store alone.
    func fulfillFault(_ object: NSManagedObject) {
        if let parent {
            guard let snapshot = parent.performAndWait({ parent.snapshot(for: object.objectID) }) else {
                return inaccessibleFault(object, "the object no longer exists")
            }
            object.takeCommittedValues(snapshot.slots)
            return
        }
        if let batch = object.fetchBatch {
            do {
                try loadBatch(batch)
            } catch {
                return inaccessibleFault(object, "\(error)")
            }
            if object.hasCachedRow {
                object.commitCurrentValues()
                return
            }
        }
        guard let store = object.store else {
            preconditionFailure("CoreData could not fulfill a fault for an object without a store.")
        }
        let row: StoreRow?
        do {
            if let executor = persistentStoreCoordinator?.executor(of: store) {
                row = try executor.row(for: object.objectID, in: self)
            } else {
                row = try readingQueryGeneration { try reader(of: store).row(of: object.entity, primaryKey: object.primaryKey) }
            }
        } catch {
            return inaccessibleFault(object, "\(error)")
        }
        guard let row, let values = row.values else { return inaccessibleFault(object, "the row no longer exists") }
        object.takeCommittedValues(values)
        object.version = row.version
    }

    /// A fault whose values cannot be read: its row was deleted, or the file is damaged. With
    /// `shouldDeleteInaccessibleFaults` (the default), as in Core Data, its properties read as nil
    /// and its to-many relationships as empty; without it the program stops, as Core Data raises.
    private func inaccessibleFault(_ object: NSManagedObject, _ reason: String) {
        let message = "CoreData could not fulfill a fault for '\(object.objectID)': \(reason)"
        guard shouldDeleteInaccessibleFaults else { preconditionFailure(message) }
        persistentStoreCoordinator?.logger.error("\(message); its properties read as nil")
        let template = object.entity.layout!.objectTemplate
        var slots = SlotRow(repeating: .null, count: template.names.count)
        for slot in template.toManySlots { slots[slot] = .unloaded }
        object.takeCommittedValues(slots)
    }

    /// The destination objects of a to-many relationship, read from the store.
    func loadToMany(_ relationship: NSRelationshipDescription, of object: NSManagedObject) -> [NSManagedObject] {
        if let parent {
            let id = object.objectID
            let ids = parent.performAndWait {
                parent.registeredOrStored(id)?.toManySet(relationship).objects.map(\.objectID) ?? []
            }
            return ids.map { self.object(with: $0) }
        }
        guard object.primaryKey != 0, let store = object.store else { return [] }
        if let executor = persistentStoreCoordinator?.executor(of: store) {
            do {
                return try executor.destinationIDs(of: relationship, for: object.objectID, in: self).map { self.object(with: $0) }
            } catch {
                let message = "CoreData could not fulfill the relationship '\(relationship.name)' of \(object.objectID): \(error)"
                guard shouldDeleteInaccessibleFaults else { preconditionFailure(message) }
                persistentStoreCoordinator?.logger.error("\(message); it reads as empty")
                return []
            }
        }
        let references: [ObjectReference]
        do {
            references = try readingQueryGeneration { try reader(of: store).relatedReferences(relationship, ofPrimaryKey: object.primaryKey) }
        } catch {
            // Only a damaged file or a failing disk gets here; treated as an inaccessible fault is.
            let message = "CoreData could not fulfill the relationship '\(relationship.name)' of \(object.objectID): \(error)"
            guard shouldDeleteInaccessibleFaults else { preconditionFailure(message) }
            persistentStoreCoordinator?.logger.error("\(message); it reads as empty")
            return []
        }
        return references.map { registeredObject(for: $0, in: store) }
    }
}

/// The entity of each fetched row by its number, remembering the last one: rows of one entity
/// come in long runs, and asking the store goes through the coordinator's model.
package struct EntityLookup {
    let store: NSPersistentStore
    private var lastNumber: Int32 = -1
    private var lastEntity: NSEntityDescription?
    /// The class of the entity `entity(_:)` returned last.
    private(set) var objectClass: NSManagedObject.Type?
    /// The store number of that entity's hierarchy root.
    private(set) var rootNumber: Int32 = 0

    init(store: NSPersistentStore) { self.store = store }

    mutating func entity(_ number: Int32) -> NSEntityDescription {
        if number == lastNumber, let lastEntity { return lastEntity }
        let entity = store.entity(number: number)!
        lastNumber = number
        lastEntity = entity
        objectClass = entity.managedObjectClass
        rootNumber = Int32(entity.layout!.root.layout!.entityNumber)
        return entity
    }
}
