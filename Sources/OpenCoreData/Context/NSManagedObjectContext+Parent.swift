/// Parent and child contexts: a child reads through its parent (seeing the parent's unsaved
/// changes) and its save pushes changes into the parent instead of the stores.
extension NSManagedObjectContext {
    /// What a parent hands a child for one object: its values with relationships as object IDs.
    struct ParentSnapshot {
        let id: NSManagedObjectID
        let slots: SlotRow
    }

    func addChild(_ child: NSManagedObjectContext) {
        childrenLock.lock()
        defer { childrenLock.unlock() }
        children.removeAll { $0.context == nil }
        children.append(WeakContext(context: child))
    }

    /// Makes an object findable by its temporary ID.
    func registerTemporary(_ object: NSManagedObject) {
        guard let id = object.temporaryID, object.primaryKey == 0 else { return }
        registry[id.key] = object
    }

    /// The object for `id` if this context has it or its store or parent does; nil if it no
    /// longer exists anywhere.
    func registeredOrStored(_ id: NSManagedObjectID) -> NSManagedObject? {
        if let object = registeredObject(for: id) {
            return object.isDeleted ? nil : object
        }
        if id.isTemporaryID {
            guard let parent, parent.performAndWait({ parent.snapshot(for: id) }) != nil else { return nil }
            return object(with: id)
        }
        return try? existingObject(with: id)
    }

    /// This context's current view of an object, for a child: values with relationships as IDs.
    func snapshot(for id: NSManagedObjectID) -> ParentSnapshot? {
        guard let object = registeredOrStored(id) else { return nil }
        return ParentSnapshot(id: id, slots: portableSlots(of: object))
    }

    /// An object's values as another context can take them: to-ones and to-manys as object IDs.
    func portableSlots(of object: NSManagedObject) -> SlotRow {
        object.fireFault()
        var slots = object.slots
        for property in object.entity.properties {
            guard let relationship = property as? NSRelationshipDescription else { continue }
            if relationship.isToMany {
                slots[relationship.slot] = .objectIDs(ObjectIDList(object.toManySet(relationship).objects.map(\.objectID)))
            } else if let destination = object.toOneValue(relationship) {
                slots[relationship.slot] = .objectID(destination.objectID)
            } else {
                slots[relationship.slot] = .null
            }
        }
        return slots
    }

    /// Runs a fetch in the parent (which sees its own parent and stores) and registers the
    /// results in this context with the parent's current values.
    func fetchThroughParent<T>(
        _ parent: NSManagedObjectContext, request: NSFetchRequest<T>, entity: NSEntityDescription, ignoringLimits: Bool
    ) throws -> [NSManagedObject] {
        let snapshots: [ParentSnapshot] = try parent.performAndWait {
            let objects = try parent.fetchObjects(
                request, entity: entity, coordinator: parent.persistentStoreCoordinator!, ignoringLimits: ignoringLimits)
            return objects.map { ParentSnapshot(id: $0.objectID, slots: parent.portableSlots(of: $0)) }
        }
        return snapshots.map { snapshot in
            let object = self.object(with: snapshot.id)
            if object.isFault, object.cachedRow == nil { object.cachedRow = snapshot.slots }
            if !request.returnsObjectsAsFaults { object.fireFault() }
            return object
        }
    }

    /// A child's save: its inserts, updates and deletes become the parent's unsaved changes.
    func pushChanges(to parent: NSManagedObjectContext, inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        struct Change {
            let id: NSManagedObjectID
            let entity: NSEntityDescription
            let slots: SlotRow
            let changedKeys: Set<String>?
        }
        let insertions = inserted.map { Change(id: $0.objectID, entity: $0.entity, slots: portableSlots(of: $0), changedKeys: nil) }
        let updates = updated.map {
            Change(id: $0.objectID, entity: $0.entity, slots: portableSlots(of: $0), changedKeys: Set($0.changedValues().keys))
        }
        let deletions = deleted.map(\.objectID)
        parent.performAndWait {
            // Create every inserted object first, so relationships among them resolve.
            for change in insertions where parent.registeredObject(for: change.id) == nil {
                let object = change.entity.managedObjectClass.init(_entityClassOf: change.entity, insertInto: nil)
                // In the parent before its key: its store is numbered among the parent's stores.
                object.managedObjectContext = parent
                if change.id.isTemporaryID {
                    object.temporaryID = change.id
                } else {
                    object.assignPermanentID(store: change.id.persistentStore!, primaryKey: change.id.primaryKey)
                }
                object.slots = SlotRow(repeating: .null, count: change.entity.properties.count)
                object.faultState = .filled
                object.flags.insert([.inserted, .insertedInEvent])
                parent.insertedList.append(object)
                parent.insertedCount += 1
                parent.registry[change.id.key] = object
            }
            for change in insertions + updates {
                guard let object = parent.registeredOrStored(change.id) else { continue }
                parent.apply(change.slots, keys: change.changedKeys, to: object)
            }
            for id in deletions {
                if let object = parent.registeredOrStored(id) { parent.delete(object) }
            }
            // The parent's observers (a fetched results controller on screen) learn of the pushed
            // changes now, as in Core Data, not at the parent's next event.
            parent.processPendingChanges()
        }
    }

    /// Sets a pushed object's values in this context, resolving object IDs to this context's objects.
    private func apply(_ slots: SlotRow, keys: Set<String>?, to object: NSManagedObject) {
        object.fireFault()
        for property in object.entity.properties {
            if let keys, !keys.contains(property.name) { continue }
            switch slots[property.slot] {
            case .objectID(let id):
                object.slots[property.slot] = .toOne(self.object(with: id))
            case .objectIDs(let list):
                object.slots[property.slot] = .toMany(RelationshipSet(list.ids.map { self.object(with: $0) }))
            case let value:
                object.slots[property.slot] = value
            }
        }
        object.markChanged()
    }

    /// After the root saved, objects of child contexts that still carry the temporary IDs take
    /// their permanent ones.
    func propagatePermanentIDs(_ mapping: [(NSManagedObjectID, NSManagedObjectID)]) {
        childrenLock.lock()
        let live = children.compactMap(\.context)
        childrenLock.unlock()
        for child in live {
            child.perform {
                for (temporary, permanent) in mapping {
                    guard let object = child.registry.removeValue(forKey: temporary.key) else { continue }
                    object.assignPermanentID(store: permanent.persistentStore!, primaryKey: permanent.primaryKey)
                    child.registry[permanent.key] = object
                }
                child.propagatePermanentIDs(mapping)
            }
        }
    }
}

/// A child context, held weakly by its parent.
struct WeakContext: @unchecked Sendable {
    // @unchecked Sendable: only the reference crosses threads; the context is Sendable itself.
    weak var context: NSManagedObjectContext?
}
