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
                if let derived = property as? NSDerivedAttributeDescription {
                    _ = try DerivationForm(derived, entity: entity)
                }
                if let composite = property as? NSCompositeAttributeDescription {
                    try validate(composite, path: "\(entity.name!).\(composite.name)")
                } else if (property as? NSAttributeDescription)?.attributeType == .compositeAttributeType {
                    throw CoreDataError.make(
                        NSCoreDataError,
                        "The model is not supported: attribute '\(entity.name!).\(property.name)' is of type Composite but is not an NSCompositeAttributeDescription.")
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

    /// Core Data's rules for a composite's elements: at least one, names unique, no `undefined`,
    /// `objectID` or externally stored binary element (NSAttributeDescription.AttributeType.composite).
    private static func validate(_ composite: NSCompositeAttributeDescription, path: String, depth: Int = 0) throws {
        func refuse(_ problem: String) -> NSError {
            CoreDataError.make(NSCoreDataError, "The model is not supported: composite attribute '\(path)' \(problem).")
        }
        guard depth < ModelLimits.maximumHierarchyDepth else { throw refuse("nests too deeply") }
        guard !composite.elements.isEmpty else { throw refuse("has no elements") }
        var names = Set<String>()
        for element in composite.elements {
            guard !element.name.isEmpty, !element.name.contains("."), names.insert(element.name).inserted else {
                throw refuse("has an element without a name of its own ('\(element.name)')")
            }
            switch element.attributeType {
            case .undefinedAttributeType, .objectIDAttributeType:
                throw refuse("has an element '\(element.name)' of type \(element.attributeType.xcodeName), which a composite can't hold")
            case .binaryDataAttributeType where element.allowsExternalBinaryDataStorage:
                throw refuse("has an element '\(element.name)' stored outside the store, which a composite can't hold")
            case .compositeAttributeType:
                guard let nested = element as? NSCompositeAttributeDescription else { throw refuse("has an element '\(element.name)' of type Composite that is not an NSCompositeAttributeDescription") }
                try validate(nested, path: path + "." + element.name, depth: depth + 1)
            default:
                break
            }
        }
    }
}
