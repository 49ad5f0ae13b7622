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
            // Before anything walks the hierarchy: a cycle or an absurd depth would make it loop
            // or take minutes.
            guard ModelLimits.depth(of: entity) != nil else {
                throw CoreDataError.make(NSCoreDataError, "The model is not supported: \(ModelLimits.tooDeep(entity.name!)).")
            }
        }
        let members = Set(model.entities.map(ObjectIdentifier.init))
        for entity in model.entities {
            let properties = entity.properties
            let count = properties.count
            guard count <= ModelLimits.maximumProperties else {
                throw CoreDataError.make(
                    NSCoreDataError, "The model is not supported: \(ModelLimits.tooManyProperties(entity.name!, count: count)).")
            }
            if let superentity = entity.superentity, !members.contains(ObjectIdentifier(superentity)) {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "Entity '\(entity.name!)' inherits from '\(superentity.name ?? "?")', which is not in the model.")
            }
            var propertyNames = Set<String>()
            for property in properties {
                guard !property.name.isEmpty else {
                    throw CoreDataError.make(NSCoreDataError, "A property of entity '\(entity.name!)' has no name.")
                }
                guard propertyNames.insert(property.name).inserted else {
                    throw CoreDataError.make(
                        NSCoreDataError, "Entity '\(entity.name!)' has two properties named '\(property.name)'.")
                }
                if let relationship = property as? NSRelationshipDescription {
                    guard let destination = relationship.destinationEntity, members.contains(ObjectIdentifier(destination))
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
