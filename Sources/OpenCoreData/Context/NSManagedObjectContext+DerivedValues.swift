extension NSManagedObjectContext {
    /// Gives the context's objects the derived attribute values their store computed in a save
    /// (`NSDerivedAttributeDescription`): as committed values, so that the objects stay clean,
    /// with change notifications for observers. Faults read the values when they fire.
    ///
    /// - Complexity: O(v) for v values.
    func applyDerivedValues(_ values: [DerivedValue], from store: NSPersistentStore) {
        let model = store.persistentStoreCoordinator?.managedObjectModel
        for derived in values {
            guard let entities = model?.entitiesInStoreOrder, entities.indices.contains(Int(derived.entityNumber) - 1) else { continue }
            let entity = entities[Int(derived.entityNumber) - 1]
            let key = ObjectKey(store: ObjectIdentifier(store), root: entity.rootNumber, primaryKey: derived.primaryKey, temporary: nil)
            guard let object = registry[key], !object.isFault, derived.slot < object.slots.count else { continue }
            let name = entity.layout!.properties[derived.slot].name
            object.willChangeValue(forKey: name)
            object.slots[derived.slot] = derived.value
            if object.committed != nil { object.committed![derived.slot] = derived.value }
            object.didChangeValue(forKey: name)
        }
    }
}
