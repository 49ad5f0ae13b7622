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

    /// The entity new models of a class start in, unattached (`_ModelBacking.unattached`), by
    /// class: the one of the context that last inserted a model of it, for classes whose
    /// models can (`ModelInsertPlan.startsUnattached`). Held weakly, with its model: an entry
    /// whose container is gone is not used (its entity's reference to its model would dangle).
    private static let unattachedEntities = Locked<[ObjectIdentifier: UnattachedEntity]>([:])

    private struct UnattachedEntity {
        weak var entity: NSEntityDescription?
        weak var model: NSManagedObjectModel?
    }

    /// The entity a new model of `type` starts in; nil while it starts detached.
    static func unattachedEntity(for type: any PersistentModel.Type) -> NSEntityDescription? {
        unattachedEntities.withLock { entries in
            guard let entry = entries[ObjectIdentifier(type)], entry.model != nil else { return nil }
            return entry.entity
        }
    }

    /// Lets new models of `type` start in `entity` (the entity of a context that inserted one,
    /// whose model that context's coordinator holds).
    static func startUnattached(_ type: any PersistentModel.Type, in entity: NSEntityDescription) {
        let entry = UnattachedEntity(entity: entity, model: entity.managedObjectModel)
        unattachedEntities.withLock { $0[ObjectIdentifier(type)] = entry }
    }
}

