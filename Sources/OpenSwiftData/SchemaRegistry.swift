import OpenCoreData

/// The model class behind each entity of a schema's model, for the models a context lists without
/// knowing their type (`insertedModelsArray`, the models a history change names).
enum SchemaRegistry {
    private static let types = Locked<[ObjectIdentifier: any PersistentModel.Type]>([:])

    /// Notes the class of each entity of `schema`'s model.
    static func register(_ schema: Schema) {
        types.withLock { types in
            for entity in schema.managedObjectModel.entities {
                if let name = entity.name, let type = schema.types[name] { types[ObjectIdentifier(entity)] = type }
            }
        }
    }

    static func type(of entity: NSEntityDescription) -> (any PersistentModel.Type)? {
        types.withLock { $0[ObjectIdentifier(entity)] }
    }
}

