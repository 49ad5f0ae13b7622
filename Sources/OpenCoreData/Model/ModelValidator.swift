/// Checks a model before a coordinator uses it, so that a broken model is a clear error instead of
/// a crash deep in a fetch.
enum ModelValidator {
    static func validate(_ model: NSManagedObjectModel) throws {
        var names = Set<String>()
        for entity in model.entities {
            guard let name = entity.name, !name.isEmpty else {
                throw CoreDataError.make(NSCoreDataError, "An entity in the model has no name.")
            }
            guard names.insert(name).inserted else {
                throw CoreDataError.make(NSCoreDataError, "The model has two entities named '\(name)'.")
            }
            if entity.managedObjectModel !== model { entity.managedObjectModel = model }
        }
        for entity in model.entities {
            if let superentity = entity.superentity, !model.entities.contains(where: { $0 === superentity }) {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "Entity '\(entity.name!)' inherits from '\(superentity.name ?? "?")', which is not in the model.")
            }
            var propertyNames = Set<String>()
            for property in entity.properties {
                guard !property.name.isEmpty else {
                    throw CoreDataError.make(NSCoreDataError, "A property of entity '\(entity.name!)' has no name.")
                }
                guard propertyNames.insert(property.name).inserted else {
                    throw CoreDataError.make(
                        NSCoreDataError, "Entity '\(entity.name!)' has two properties named '\(property.name)'.")
                }
                if let relationship = property as? NSRelationshipDescription {
                    guard let destination = relationship.destinationEntity,
                        model.entities.contains(where: { $0 === destination })
                    else {
                        throw CoreDataError.make(
                            NSCoreDataError,
                            "Relationship '\(property.name)' of entity '\(entity.name!)' has no destination entity in the model.")
                    }
                }
            }
        }
    }
}
