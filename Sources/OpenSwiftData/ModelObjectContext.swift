import Foundation
import OpenCoreData

/// The managed object context behind a `ModelContext`: it knows its `ModelContext` (so that a
/// model can name its context) and puts models into itself as managed objects.
final class ModelObjectContext: NSManagedObjectContext, @unchecked Sendable {
    // @unchecked Sendable as its superclass: used on the queue of the context that owns it.
    weak var owner: ModelContext?

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
        case .detached(let detached): values = detached
        }
        let info = ModelClassInfo.of(type(of: model))
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[info.entityName] else { return nil }
        let object = ModelManagedObject(entity: entity, insertInto: self)
        object.owner = model
        // Attached before its values are copied, so that a cycle of new models ends here.
        model.persistentBackingData = .managed(object)
        for property in info.properties {
            // A `let` keeps its value in the model itself.
            let value: Any
            if let set = values.values[property.name] {
                value = set
            } else {
                let kept: Any? = (model as Any)[keyPath: property.keypath]
                value = kept as Any
            }
            set(value, forKey: property.name, of: object)
        }
        return object
    }

    private func set(_ value: Any, forKey key: String, of object: ModelManagedObject) {
        let value: Any? = if let optional = value as? any OptionalType { optional.flattened } else { value }
        if let relationship = object.entity.relationshipsByName[key] {
            if relationship.isToMany {
                let models = value as? [any PersistentModel] ?? []
                object.setValue(Set(models.compactMap { managedObject(inserting: $0) as NSManagedObject? }), forKey: key)
            } else {
                object.setValue((value as? any PersistentModel).flatMap { managedObject(inserting: $0) }, forKey: key)
            }
        } else {
            object._setManagedValue(value.flatMap(ValueCoding.storedValue), slot: -1, key: key)
        }
    }
}
