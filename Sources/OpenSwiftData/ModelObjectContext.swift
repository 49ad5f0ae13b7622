import Foundation
import OpenCoreData

/// The managed object context behind a `ModelContext`: it knows its `ModelContext` (so that a
/// model can name its context) and puts models into itself as managed objects.
final class ModelObjectContext: NSManagedObjectContext, @unchecked Sendable {
    // @unchecked Sendable as its superclass: used on the queue of the context that owns it.
    weak var owner: ModelContext?

    /// The identifiers of the last save's objects, made as the save told them.
    private var savedIdentifiers = SavedIdentifiers()

    struct SavedIdentifiers {
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []
    }

    override init(concurrencyType: NSManagedObjectContextConcurrencyType) {
        super.init(concurrencyType: concurrencyType)
        savedObjectsHandler = { [unowned self] inserted, updated, deleted in
            savedIdentifiers = SavedIdentifiers(
                inserted: PersistentIdentifier.identifiers(of: inserted), updated: PersistentIdentifier.identifiers(of: updated),
                deleted: PersistentIdentifier.identifiers(of: deleted))
        }
    }

    /// The identifiers of the last save's objects, forgotten here.
    ///
    /// - Returns: The inserted, updated and deleted models' identifiers.
    func takeSavedIdentifiers() -> SavedIdentifiers {
        defer { savedIdentifiers = SavedIdentifiers() }
        return savedIdentifiers
    }

    /// The managed object standing for `model` here: its own if it is already in this context,
    /// else a new inserted one holding the values the model was given, related models inserted
    /// with it (as SwiftData inserts what a new model refers to). Nil for a model of a class the
    /// schema does not have.
    ///
    /// - Parameter model: A model.
    /// - Returns: Its managed object.
    func managedObject(inserting model: any PersistentModel) -> ModelManagedObject? {
        let values: DetachedValues
        switch model.persistentBackingData {
        case .managed(let object): return object
        case .unattached(let object): return insert(unattached: object, of: model)
        case .detached(let detached): values = detached
        }
        guard let plan = insertPlan(for: type(of: model)) else { return nil }
        // The class's next models start in an object of this entity (`SchemaRegistry`).
        if plan.startsUnattached { SchemaRegistry.startUnattached(type(of: model), in: plan.entity) }
        let object = ModelManagedObject(entity: plan.entity, insertInto: self)
        object.owner = model
        // The shared empty storage never has a registrar (`_ModelObservationRegistrar`).
        if values !== DetachedValues.none { object.observation.adopt(values.observation) }
        // Attached before its values are copied, so that a cycle of new models ends here.
        model.persistentBackingData = .managed(object)
        for property in plan.properties {
            switch values.value(at: property.index) {
            case .leaf(let leaf)?: leaf._writeSelf(to: object, property.index, property.name)
            case .other(let value)?: set(value, for: property, of: object)
            case nil:
                // A `let` keeps its value in the model itself.
                let kept: Any? = (model as Any)[keyPath: property.keypath]
                set(kept as Any, for: property, of: object)
            }
        }
        return object
    }

    /// Inserts a model that started unattached: its own object when that is of this context's
    /// entity for the class, else a new one given the values (the model was made for another
    /// container's model, whose entity this context cannot hold).
    ///
    /// - Parameters:
    ///   - object: The object holding the model's values.
    ///   - model: The model.
    /// - Returns: The model's managed object here; nil for a class the schema does not have.
    private func insert(unattached object: ModelManagedObject, of model: any PersistentModel) -> ModelManagedObject? {
        guard let plan = insertPlan(for: type(of: model)) else { return nil }
        if object.entity === plan.entity {
            insert(object)
            object.owner = model
            model.persistentBackingData = .managed(object)
            return object
        }
        let copy = ModelManagedObject(entity: plan.entity, insertInto: self)
        copy.owner = model
        copy.observation.adopt(object.observation)
        // Only what both entities have: the class's properties, in two models of it.
        let given = object.entity.attributesByName
        let taken = plan.entity.attributesByName
        for property in plan.properties where given[property.name] != nil && taken[property.name] != nil {
            copy.setValue(object.value(forKey: property.name), forKey: property.name)
        }
        model.persistentBackingData = .managed(copy)
        if plan.startsUnattached { SchemaRegistry.startUnattached(type(of: model), in: plan.entity) }
        return copy
    }

    /// Insert plans by model class, made on first use.
    private var insertPlans: [ObjectIdentifier: ModelInsertPlan] = [:]
    /// The plan used last, by class: an import inserts models of one class after another, and
    /// this saves each a hash and a dictionary probe.
    private var lastInsertPlan: (type: ObjectIdentifier, plan: ModelInsertPlan)?

    private func insertPlan(for type: any PersistentModel.Type) -> ModelInsertPlan? {
        let key = ObjectIdentifier(type)
        if let last = lastInsertPlan, last.type == key { return last.plan }
        if let plan = insertPlans[key] {
            lastInsertPlan = (key, plan)
            return plan
        }
        let info = ModelClassInfo.of(type)
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[info.entityName] else { return nil }
        let plan = ModelInsertPlan(info: info, entity: entity)
        insertPlans[key] = plan
        lastInsertPlan = (key, plan)
        return plan
    }

    private func set(_ value: Any, for property: ModelInsertPlan.Property, of object: ModelManagedObject) {
        switch property.kind {
        case .attribute:
            // A type Core Data holds as it is goes through its typed accessor; others are
            // converted (raw values, composites, JSON) first.
            if let leaf = value as? any _PersistedLeaf {
                leaf._writeSelf(to: object, property.index, property.name)
            } else {
                object._setManagedValue(ValueCoding.storedValue(value), slot: property.index, key: property.name)
            }
        case .toOne:
            let related = (flattened(value) as? any PersistentModel).flatMap { managedObject(inserting: $0) }
            object._setManagedValue(related as NSManagedObject?, slot: property.index, key: property.name)
        case .toMany:
            let models = value as? [any PersistentModel] ?? []
            let related = Set(models.compactMap { managedObject(inserting: $0) as NSManagedObject? })
            object._setManagedValue(related, slot: property.index, key: property.name)
        }
    }
}
