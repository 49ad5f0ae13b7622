/// Fetching from stores that run requests themselves (`NSIncrementalStore`): the context hands
/// them the request, as Core Data does, and lays its pending changes over what they return.
extension NSManagedObjectContext {
    /// The results of `request` from `executors`, with the results of the coordinator's other
    /// stores that hold the entity, as `fetch(_:)` returns them.
    func fetch<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, through executors: [any RequestExecutingStore],
        coordinator: NSPersistentStoreCoordinator
    ) throws -> [T] {
        let answers = try answers(to: request, entity: entity, from: executors)
        // The coordinator's other stores that hold the entity answer as usual.
        let others = try coordinator.readers(of: entity, among: request.affectedStores)
        var fromOthers: [T] = []
        if !others.isEmpty {
            let rest = request.copy(as: T.self)
            rest.affectedStores = others.map { $0 as NSPersistentStore }
            fromOthers = try fetch(rest)
        }
        switch request.resultType {
        case .countResultType:
            func sum(_ counts: [Any]) -> Int { counts.reduce(0) { $0 + ((($1 as? NSNumber)?.intValue) ?? ($1 as? Int) ?? 0) } }
            let counted = request.includesPendingChanges && hasChanges
                ? try pendingObjects(for: request, entity: entity, answers: answers, executors: executors).count : sum(answers)
            return [NSNumber(value: counted + sum(fromOthers)) as! T]
        case .dictionaryResultType:
            let dictionaries = answers.compactMap { answer -> NSDictionary? in
                (answer as? NSDictionary) ?? (answer as? [String: Any]).map { NSDictionary(dictionary: $0) }
            }
            return try dictionaries.map { try Self.cast($0, entity: entity) } + fromOthers
        case .managedObjectIDResultType:
            if request.includesPendingChanges && hasChanges {
                return try pendingObjects(for: request, entity: entity, answers: answers, executors: executors).map {
                    try Self.cast($0.objectID, entity: entity)
                } + fromOthers
            }
            let ids = answers.compactMap { ($0 as? NSManagedObjectID) ?? ($0 as? NSManagedObject)?.objectID }
            return try ids.map { try Self.cast($0, entity: entity) } + fromOthers
        default:
            let objects = try pendingObjects(for: request, entity: entity, answers: answers, executors: executors)
            return try objects.map { try Self.cast($0, entity: entity) } + fromOthers
        }
    }

    /// What each store answered `request` with, as one array.
    private func answers<T>(
        to request: NSFetchRequest<T>, entity: NSEntityDescription, from executors: [any RequestExecutingStore]
    ) throws -> [Any] {
        // Apple's stores receive every fetch as a request of NSFetchRequestResult, its entity set.
        let erased = request.copy(as: NSFetchRequestResult.self)
        erased.entity = entity
        var answers: [Any] = []
        for store in executors {
            switch try store.executeRequest(erased, in: self) {
            case let array as [Any]: answers += array
            case let array as NSArray: answers += Array(array)
            case let other:
                throw CoreDataError.make(
                    NSCoreDataError, "The store of type '\(store.type)' answered a fetch request with \(Swift.type(of: other)), not an array.")
            }
        }
        return answers
    }

    /// The objects the stores answered with (made from IDs where they gave IDs), registered, with
    /// the context's pending changes laid over them when the request includes them.
    private func pendingObjects<T>(
        for request: NSFetchRequest<T>, entity: NSEntityDescription, answers: [Any], executors: [any RequestExecutingStore]
    ) throws -> [NSManagedObject] {
        var answers = answers
        let pending = request.includesPendingChanges && hasChanges
        if pending && (request.resultType != .managedObjectResultType || request.fetchLimit > 0 || request.fetchOffset > 0) {
            // Pending changes are merged into every object the stores have; limits apply after.
            let objects = request.copy(as: NSFetchRequestResult.self)
            objects.resultType = .managedObjectResultType
            objects.fetchLimit = 0
            objects.fetchOffset = 0
            answers = try self.answers(to: objects, entity: entity, from: executors)
        }
        var found: [NSManagedObject] = []
        found.reserveCapacity(answers.count)
        for answer in answers {
            if let object = answer as? NSManagedObject {
                found.append(object)
            } else if let id = answer as? NSManagedObjectID {
                found.append(object(with: id))
            }
        }
        for store in executors {
            let ids = found.compactMap { $0.store === store ? $0.objectID : nil }
            if !ids.isEmpty { store.didRegister(ids) }
        }
        guard pending else { return found }
        var merged = mergePendingChanges(into: found, request: request, entity: entity)
        if request.fetchOffset > 0 { merged = Array(merged.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { merged = Array(merged.prefix(request.fetchLimit)) }
        return merged
    }

    private static func cast<T>(_ value: Any, entity: NSEntityDescription) throws -> T {
        guard let typed = value as? T else {
            throw CoreDataError.make(
                NSCoreDataError, "The fetch request's result type does not match what the store returned for entity \(entity.name ?? "?").")
        }
        return typed
    }
}
