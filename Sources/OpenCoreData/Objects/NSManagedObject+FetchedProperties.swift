extension NSManagedObject {
    /// A fetched property's value: its request's results, with `$FETCH_SOURCE` this object and
    /// `$FETCHED_PROPERTY` the property, fetched in the object's context when first read and kept
    /// until the object is refreshed or turned into a fault (`refresh(_:mergeChanges:)`).
    ///
    /// - Parameter property: A fetched property of the object's entity.
    /// - Returns: The results as an array (empty without a context or request, or when the fetch
    ///   fails, which is logged: KVC cannot throw).
    func fetchedValue(_ property: NSFetchedPropertyDescription) -> Any? {
        if case .object(let box) = slots[property.slot] { return box.value }
        guard let context = managedObjectContext, let template = property.fetchRequest else { return [Any]() }
        let request = template.copy() as! NSFetchRequest<NSFetchRequestResult>
        if request.entity == nil, let name = request.entityName {
            request.entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name]
        }
        request.predicate = template.predicate?.withSubstitutionVariables(["FETCH_SOURCE": self, "FETCHED_PROPERTY": property])
        let results: [Any]
        do {
            results = try context.fetch(request)
        } catch {
            context.persistentStoreCoordinator?.storeLogging.logger.error(
                "The fetched property \(property.name) of \(entity.name ?? "?") could not be fetched: \((error as NSError).localizedDescription)")
            results = []
        }
        slots[property.slot] = .object(AnyBox(results))
        return results
    }
}
