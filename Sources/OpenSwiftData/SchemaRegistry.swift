import OpenCoreData
import Synchronization

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
    /// models can (`ModelInsertPlan.startsUnattached`). An entry goes with its container
    /// (`forgetUnattachedEntities(of:)`), before the entity's model can: the entity's reference to
    /// its model is not counted, and models made with it afterwards would reach a freed model.
    // A `Mutex`: its lock and the lookup are compiled into the caller, where `Locked`'s generic
    // `withLock` is a call through a closure into another module; every new model reads it.
    private static let unattachedEntities = Mutex(UnattachedEntities())

    /// The entity a new model of `type` starts in; nil while it starts detached.
    static func unattachedEntity(for type: any PersistentModel.Type) -> NSEntityDescription? {
        unattachedEntities.withLock { $0.entity(for: ObjectIdentifier(type)) }
    }

    /// Lets new models of `type` start in `entity`, the entity of a context that inserted one
    /// (its container, which holds the entity's model, is alive).
    static func startUnattached(_ type: any PersistentModel.Type, in entity: NSEntityDescription) {
        unattachedEntities.withLock { $0.set(entity, for: ObjectIdentifier(type)) }
    }

    /// Forgets the entities of `model`, whose container is going.
    static func forgetUnattachedEntities(of model: NSManagedObjectModel) {
        // Every entry's model is alive: its container removes it first.
        unattachedEntities.withLock { $0.removeAll { $0.managedObjectModel === model } }
    }
}

/// The unattached entities by class, with the last one set beside them: an import makes models
/// of one class after another, and a comparison costs less than hashing the class. A lookup
/// only reads: the thread sanitizer does not see the `Mutex`'s lock, and a memo each lookup
/// wrote showed as a race between model actors making models at once.
private struct UnattachedEntities {
    private var byClass: [ObjectIdentifier: NSEntityDescription] = [:]
    private var last: (type: ObjectIdentifier, entity: NSEntityDescription)?

    func entity(for type: ObjectIdentifier) -> NSEntityDescription? {
        if let last, last.type == type { return last.entity }
        return byClass[type]
    }

    mutating func set(_ entity: NSEntityDescription, for type: ObjectIdentifier) {
        byClass[type] = entity
        last = (type, entity)
    }

    mutating func removeAll(where shouldRemove: (NSEntityDescription) -> Bool) {
        byClass = byClass.filter { !shouldRemove($0.value) }
        if let last, shouldRemove(last.entity) { self.last = nil }
    }
}

