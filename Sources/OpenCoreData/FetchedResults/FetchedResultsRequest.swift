/// What a fetched results controller reads of its fetch request, whatever the request's result
/// type parameter: the controller's state is shared by its typed face and the
/// `NSFetchedResultsController<NSFetchRequestResult>` its delegate is handed.
protocol FetchedResultsRequest: AnyObject {
    var predicate: NSPredicate? { get }
    var sortDescriptors: [NSSortDescriptor]? { get }
    var includesSubentities: Bool { get }
    var resultType: NSFetchRequestResultType { get }
    var affectedStores: [NSPersistentStore]? { get }
    var entityName: String? { get }

    /// The managed objects the request matches in `context`, and its entity there.
    func fetchManagedObjects(in context: NSManagedObjectContext) throws -> (objects: [NSManagedObject], entity: NSEntityDescription)
}

extension NSFetchRequest: FetchedResultsRequest {
    func fetchManagedObjects(in context: NSManagedObjectContext) throws -> (objects: [NSManagedObject], entity: NSEntityDescription) {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        let entity = try resolvedEntity(in: coordinator.managedObjectModel)
        return (try context.fetchObjects(self, entity: entity, coordinator: coordinator), entity)
    }
}
