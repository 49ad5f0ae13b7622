/// A fetch request answered in memory over a store's objects, as an atomic store answers it:
/// the objects of the entity (and its subentities, if asked), filtered by the predicate and
/// ordered by the sort descriptors as the context sees them, then offset and limit.
struct InMemoryFetch {
    let request: NSFetchRequest<NSFetchRequestResult>

    init(_ request: NSFetchRequest<NSFetchRequestResult>) { self.request = request }

    /// The answer to the request over the objects with `candidates` IDs: objects, IDs,
    /// `[count]` or dictionaries of the stored values, as the request's result type says.
    ///
    /// - Throws: `NSCoreDataError` for a request without an entity.
    /// - Complexity: O(n log n) in the number of candidates.
    func answer(candidates: [NSManagedObjectID], in context: NSManagedObjectContext) throws -> [Any] {
        guard let entity = request.entity else {
            throw CoreDataError.make(NSCoreDataError, "A fetch request sent to a store must name an entity.")
        }
        let selected = candidates.filter { id in
            id.entity === entity || (request.includesSubentities && id.entity.isKindOf(entity: entity))
        }
        var objects = selected.sorted { $0.primaryKey < $1.primaryKey }.map { context.object(with: $0) }
        if let predicate = request.predicate { objects = objects.filter { predicate.evaluate(with: $0) } }
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            objects.sort { a, b in
                let order = descriptors.compare(a, b)
                return order == .orderedSame ? a.objectID.primaryKey < b.objectID.primaryKey : order == .orderedAscending
            }
        }
        if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
        switch request.resultType {
        case .countResultType: return [NSNumber(value: objects.count)]
        case .managedObjectIDResultType: return objects.map(\.objectID)
        case .dictionaryResultType:
            var keys: [String] = []
            for property in request.propertiesToFetch ?? Array(entity.attributesByName.keys) {
                // Stored attributes only: expressions and grouping are computed by a store that
                // runs SQL, not over a custom store's objects.
                let name = (property as? String) ?? ((property as? NSPropertyDescription).flatMap { $0 is NSExpressionDescription ? nil : $0.name })
                guard let name, entity.attributesByName[name] != nil, request.propertiesToGroupBy?.isEmpty != false else {
                    throw CoreDataError.make(
                        NSPersistentStoreUnsupportedRequestTypeError,
                        "An atomic store's dictionary results hold stored attributes only, without grouping; \(property) is not one.")
                }
                keys.append(name)
            }
            return objects.map { object in
                var dictionary: [String: Any] = [:]
                for key in keys { if let value = object.value(forKey: key) { dictionary[key] = value } }
                return NSDictionary(dictionary: dictionary)
            }
        default: return objects
        }
    }
}
