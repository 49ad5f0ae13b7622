/// Taking in what other contexts saved: `mergeChanges(fromContextDidSave:)`, the ID-based
/// `mergeChanges(fromRemoteContextSave:into:)`, and `automaticallyMergesChangesFromParent`.
extension NSManagedObjectContext {
    /// Updates this context with the changes another context saved, given its did-save
    /// notification. Updated objects take the saved values in place (keeping this context's own
    /// unsaved changes on top), deleted ones leave the context.
    ///
    /// - Parameter notification: A did-save notification of another context on the same
    ///   coordinator; its `userInfo` holds the inserted, updated and deleted objects (or their IDs).
    ///   The merge runs on this context's queue, and the call waits for it.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        let ids = SavedObjectIDs(notification.userInfo ?? [:])
        performAndWait { mergeSaved(ids) }
    }

    /// Merges changes given as object IDs (or their URIs) under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey` into each context — how the results of batch
    /// requests reach contexts.
    ///
    /// - Parameters:
    ///   - changeNotificationData: The changes, keyed by `NSInsertedObjectsKey`, `NSUpdatedObjectsKey`
    ///     and `NSDeletedObjectsKey` (or their `…ObjectIDsKey` forms); each value is a set or array of
    ///     object IDs, managed objects or URI representations.
    ///   - contexts: The contexts to update. Each merges on its own queue, one after the other;
    ///     contexts without a coordinator are skipped.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        for context in contexts {
            guard let coordinator = context.persistentStoreCoordinator else { continue }
            let ids = SavedObjectIDs(changeNotificationData, coordinator: coordinator)
            context.performAndWait { context.mergeSaved(ids) }
        }
    }

    func mergeSaved(_ ids: SavedObjectIDs) {
        // A pinned context merging a save reads the generation that holds it.
        advanceQueryGeneration()
        // Rows read ahead may predate the save being merged.
        if !ids.updated.isEmpty || !ids.deleted.isEmpty { dropReadAhead() }
        var refreshed: [NSManagedObject] = []
        var deleted: [NSManagedObject] = []
        for id in ids.updated {
            guard let object = registeredObject(for: id) else { continue }
            refreshed.append(object)
        }
        reloadSavedValues(of: refreshed)
        for id in ids.deleted {
            guard let object = registeredObject(for: id) else { continue }
            forget(object)
            deleted.append(object)
        }
        // As in Core Data, objects inserted elsewhere come in as faults, so that observers of
        // this context (a list on screen) learn of them; a batch insert's IDs merge this way.
        let inserted = ids.inserted.compactMap { id -> NSManagedObject? in
            if let object = registeredObject(for: id) { return object }
            guard !id.isTemporaryID, id.persistentStore?.persistentStoreCoordinator === persistentStoreCoordinator else { return nil }
            return object(with: id)
        }
        guard !refreshed.isEmpty || !deleted.isEmpty || !inserted.isEmpty else { return }
        NotificationCenter.default.post(
            name: NSManagedObjectContext.didChangeObjectsNotification, object: self,
            userInfo: [NSRefreshedObjectsKey: sparseSet(refreshed), NSDeletedObjectsKey: sparseSet(deleted), NSInsertedObjectsKey: sparseSet(inserted)])
    }

    /// Replaces the saved values of objects with the store's current rows, re-applying their
    /// unsaved changes, so that their next save does not conflict with the save just merged.
    /// Faults only drop the values fetched with them. The rows of filled objects are read with
    /// one store query per entity: a merge of thousands of updates read them one statement each.
    private func reloadSavedValues(of objects: [NSManagedObject]) {
        var groups: [EntityInStore: [NSManagedObject]] = [:]
        for object in objects {
            if object.isFault {
                object.cachedRow = nil
            } else if let store = object.store {
                groups[EntityInStore(store: ObjectIdentifier(store), entity: ObjectIdentifier(object.entity)), default: []].append(object)
            }
        }
        for group in groups.values {
            let first = group[0]
            let keys = group.map(\.primaryKey).sorted()
            guard let rows = try? reader(of: first.store!).rows(of: first.entity, primaryKeys: keys) else { continue }
            var byKey: [Int64: StoreRow] = [:]
            byKey.reserveCapacity(rows.count)
            for row in rows { byKey[row.primaryKey] = row }
            for object in group {
                if let row = byKey[object.primaryKey] { reload(object, from: row) }
            }
        }
    }

    private struct EntityInStore: Hashable {
        let store: ObjectIdentifier
        let entity: ObjectIdentifier
    }

    private func reload(_ object: NSManagedObject, from row: StoreRow) {
        guard let values = row.values else { return }
        let changes = object.hasChanges ? object.changedValues() : [:]
        object.takeCommittedValues(values)
        object.version = row.version
        for (key, value) in changes {
            object.setPrimitiveValue(value is NSNull ? nil : value, forKey: key)
        }
        if changes.isEmpty {
            object.flags.remove(.updated)
            updatedMap[ObjectIdentifier(object)] = nil
        }
    }

    /// Removes an object that no longer exists in the store from the context.
    private func forget(_ object: NSManagedObject) {
        registry[object.objectID.key] = nil
        updatedMap[ObjectIdentifier(object)] = nil
        deletedList.removeAll { $0 === object }
        object.flags = []
        object.managedObjectContext = nil
    }

    /// Starts or stops taking in the saves of sibling contexts on the same coordinator (for a
    /// context without a parent) or of the parent context.
    func updateAutomaticMerging() {
        if let token = mergeObserver {
            NotificationCenter.default.removeObserver(token)
            mergeObserver = nil
        }
        guard automaticallyMergesChangesFromParent else { return }
        mergeObserver = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didSaveObjectsNotification, object: nil, queue: nil
        ) { [weak self] notification in
            guard let self, let saver = notification.object as? NSManagedObjectContext, saver !== self else { return }
            let fromParent = self.parent != nil && saver === self.parent
            let fromSibling = self.parent == nil && saver.parent == nil
                && saver.persistentStoreCoordinator === self.persistentStoreCoordinator
            guard fromParent || fromSibling else { return }
            let ids = SavedObjectIDs(notification.userInfo ?? [:])
            self.perform { [weak self] in self?.mergeSaved(ids) }
        }
    }
}

/// The IDs of what a save inserted, updated and deleted, safe to hand to another queue.
struct SavedObjectIDs: Sendable {
    var inserted: [NSManagedObjectID] = []
    var updated: [NSManagedObjectID] = []
    var deleted: [NSManagedObjectID] = []

    /// From a did-save notification's objects, or from IDs / URIs (resolved through `coordinator`).
    init(_ info: [AnyHashable: Any], coordinator: NSPersistentStoreCoordinator? = nil) {
        func ids(_ key: String) -> [NSManagedObjectID] {
            guard let value = info[key] else { return [] }
            let items: [Any]
            switch value {
            case let set as Set<NSManagedObject>: items = Array(set)
            case let set as Set<NSManagedObjectID>: items = Array(set)
            case let set as Set<AnyHashable>: items = set.map(\.base)
            case let array as [Any]: items = array
            case let set as NSSet: items = set.allObjects
            default: items = []
            }
            return items.compactMap { item in
                switch item {
                case let object as NSManagedObject: return object.objectID
                case let id as NSManagedObjectID: return id
                case let url as URL: return coordinator?.managedObjectID(forURIRepresentation: url)
                default: return nil
                }
            }
        }
        inserted = ids(NSInsertedObjectsKey) + ids(NSInsertedObjectIDsKey)
        updated = ids(NSUpdatedObjectsKey) + ids(NSUpdatedObjectIDsKey)
        deleted = ids(NSDeletedObjectsKey) + ids(NSDeletedObjectIDsKey)
    }
}
