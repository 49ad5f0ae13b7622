/// Saving: delete propagation, validation, and one store transaction per store.
extension NSManagedObjectContext {
    /// Writes every insert, update and delete to the stores, all or nothing.
    ///
    /// Pending changes are processed (delete rules run), every changed object is validated, then
    /// the store writes the changes in one transaction: primary keys from `Z_MAX`, rows inserted,
    /// updated with an optimistic-locking check on `Z_OPT`, deleted, join rows adjusted.
    ///
    /// - Throws: a validation error (1550–1680; `NSValidationMultipleErrorsError` with
    ///   `NSDetailedErrorsKey` for several), `NSValidationRelationshipDeniedDeleteError` for a deny
    ///   rule, `NSManagedObjectConstraintMergeError` for a broken uniqueness constraint,
    ///   `NSManagedObjectMergeError` for an optimistic-locking conflict, or a store error. After a
    ///   failed save the store is unchanged and the context still holds its changes.
    /// - Complexity: O(changed objects × properties).
    public func save() throws {
        assertOnQueue("save()")
        guard hasChanges || !pendingDeletions.isEmpty else { return }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
        }
        try checkDenyRules()
        processPendingChanges()
        let inserted = liveInserted
        let updated = Array(updatedMap.values)
        let deleted = deletedList.filter { $0.primaryKey != 0 }
        NotificationCenter.default.post(name: NSManagedObjectContext.willSaveObjectsNotification, object: self)
        for object in inserted { object.willSave() }
        for object in updated { object.willSave() }
        for object in deleted { object.willSave() }
        try validate(inserted: inserted, updated: updated, deleted: deleted)
        if let parent {
            pushChanges(to: parent, inserted: inserted, updated: updated, deleted: deleted)
            finishSave(inserted: inserted, updated: updated, deleted: deleted, assigned: [:])
            return
        }

        var assigned: [ObjectIdentifier: (NSPersistentStore, Int64)] = [:]
        var resolutions: [ObjectIdentifier: MergeResolution] = [:]
        for store in coordinator.persistentStores {
            let mine = { (object: NSManagedObject) in
                object.store === store || (object.store == nil && coordinator.store(for: object.entity) === store)
            }
            let storeInserted = inserted.filter(mine)
            let storeUpdated = updated.filter(mine)
            let storeDeleted = deleted.filter(mine)
            if storeInserted.isEmpty && storeUpdated.isEmpty && storeDeleted.isEmpty { continue }
            let write = SaveWrite(
                store: store, inserted: storeInserted, updated: storeUpdated, deleted: storeDeleted,
                policy: (mergePolicy as? NSMergePolicy)?.mergeType ?? .errorMergePolicyType)
            do {
                try store.save { writer in try write.run(writer) }
            } catch let violation as UniquenessViolation {
                throw constraintError(violation, write: write)
            }
            for (id, key) in write.assignedKeys { assigned[id] = (store, key) }
            for (id, resolution) in write.resolutions { resolutions[id] = resolution }
        }
        applyResolutions(resolutions, to: inserted + updated + deleted)
        let stillDeleted = deleted.filter { $0.isDeleted }
        finishSave(inserted: inserted, updated: updated, deleted: stillDeleted, assigned: assigned)
        applyResolvedVersions(resolutions, to: inserted + updated)
    }

    private func finishSave(
        inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
        assigned: [ObjectIdentifier: (NSPersistentStore, Int64)]
    ) {
        var permanentIDs: [(NSManagedObjectID, NSManagedObjectID)] = []
        for object in inserted {
            if let (store, key) = assigned[ObjectIdentifier(object)] {
                let temporary = object.temporaryID
                object.assignPermanentID(store: store, primaryKey: key)
                if let temporary {
                    registry[temporary.key] = nil
                    permanentIDs.append((temporary, object.objectID))
                }
            }
            object.flags = []
            object.version = 1
            object.committed = object.slots
            registry[object.objectID.key] = object
        }
        for object in updated {
            object.flags = []
            object.version += 1
            object.committed = object.slots
        }
        for object in deleted {
            registry[object.objectID.key] = nil
            object.flags = []
        }
        insertedList.removeAll()
        insertedCount = 0
        updatedMap.removeAll()
        deletedList.removeAll()
        resetEvent()
        if !permanentIDs.isEmpty { propagatePermanentIDs(permanentIDs) }
        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        for object in deleted {
            object.didSave()
            object.managedObjectContext = nil
        }
        NotificationCenter.default.post(
            name: NSManagedObjectContext.didSaveObjectsNotification, object: self,
            userInfo: [
                NSInsertedObjectsKey: Set(inserted), NSUpdatedObjectsKey: Set(updated), NSDeletedObjectsKey: Set(deleted),
            ])
        NotificationCenter.default.post(
            name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self,
            userInfo: [
                NSInsertedObjectIDsKey: Set(inserted.map(\.objectID)), NSUpdatedObjectIDsKey: Set(updated.map(\.objectID)),
                NSDeletedObjectIDsKey: Set(deleted.map(\.objectID)),
            ])
    }

    /// Runs delete rules for objects deleted since the last call: nullify inverses, cascade.
    public func processPendingChanges() {
        defer {
            postObjectsDidChange()
            undoManager?.closeImplicitGroup()
        }
        while !pendingDeletions.isEmpty {
            let batch = pendingDeletions
            pendingDeletions.removeAll()
            for object in batch {
                object.prepareForDeletion()
                for property in object.entity.properties {
                    guard let relationship = property as? NSRelationshipDescription else { continue }
                    let destinations = destinations(of: relationship, in: object)
                    switch relationship.deleteRule {
                    case .nullifyDeleteRule:
                        if let inverse = relationship.inverseRelationship {
                            for destination in destinations { destination.primitiveRemove(inverse, object) }
                        }
                    case .cascadeDeleteRule:
                        for destination in destinations { delete(destination) }
                    case .denyDeleteRule, .noActionDeleteRule:
                        break
                    }
                }
            }
        }
    }

    private func destinations(of relationship: NSRelationshipDescription, in object: NSManagedObject) -> [NSManagedObject] {
        if relationship.isToMany { return object.toManySet(relationship).objects }
        return object.toOneValue(relationship).map { [$0] } ?? []
    }

    /// Refuses the save before anything changes when a deny rule forbids a pending deletion.
    private func checkDenyRules() throws {
        var doomed = Set<ObjectIdentifier>()
        var queue = pendingDeletions
        while let object = queue.popLast() {
            guard doomed.insert(ObjectIdentifier(object)).inserted else { continue }
            for property in object.entity.properties {
                guard let relationship = property as? NSRelationshipDescription,
                    relationship.deleteRule == .cascadeDeleteRule
                else { continue }
                queue += destinations(of: relationship, in: object)
            }
        }
        var errors: [NSError] = []
        for object in pendingDeletions {
            for property in object.entity.properties {
                guard let relationship = property as? NSRelationshipDescription,
                    relationship.deleteRule == .denyDeleteRule
                else { continue }
                let blocking = destinations(of: relationship, in: object).filter { !doomed.contains(ObjectIdentifier($0)) }
                if !blocking.isEmpty {
                    errors.append(
                        CoreDataError.validation(
                            NSValidationRelationshipDeniedDeleteError,
                            "\(object.entity.name ?? "?") can't be deleted: its relationship '\(relationship.name)' is not empty and has the deny rule.",
                            object: object, key: relationship.name))
                }
            }
        }
        if let error = CoreDataError.combining(errors) { throw error }
    }

    private func validate(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) throws {
        var errors: [NSError] = []
        func collect(_ body: () throws -> Void) {
            do { try body() } catch let error as NSError {
                if error.code == NSValidationMultipleErrorsError, let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError] {
                    errors += detailed
                } else {
                    errors.append(error)
                }
            }
        }
        for object in inserted { collect { try object.validateForInsert() } }
        for object in updated { collect { try object.validateForUpdate() } }
        for object in deleted { collect { try object.validateForDelete() } }
        if let error = CoreDataError.combining(errors) { throw error }
    }

    private func constraintError(_ violation: UniquenessViolation, write: SaveWrite) -> NSError {
        let conflicting = write.object(withKey: violation.primaryKey)
        var entity: NSEntityDescription? = violation.entity
        var names: [String] = []
        while let e = entity, names.isEmpty {
            for constraint in e.uniquenessConstraints {
                let candidate = VersionHasher.constraintNames(constraint)
                let columns = candidate.compactMap { e.propertiesByName[$0]?.columnName }
                if columns.allSatisfy({ violation.message.contains($0) }) || names.isEmpty { names = candidate }
            }
            entity = e.superentity
        }
        let conflict = NSConstraintConflict(
            constraint: names, database: nil, databaseSnapshot: nil,
            conflicting: conflicting.map { [$0] } ?? [], conflictingSnapshots: [])
        return CoreDataError.make(
            NSManagedObjectConstraintMergeError,
            "The save broke the uniqueness constraint (\(names.joined(separator: ", "))) of entity \(violation.entity.name ?? "?").",
            userInfo: [NSPersistentStoreSaveConflictsErrorKey: [conflict]])
    }
}

/// One store's share of a save, written inside the store's transaction. Keys are assigned to the
/// objects only after the transaction commits, so a failed save leaves them temporary.
final class SaveWrite {
    let store: NSPersistentStore
    let inserted: [NSManagedObject]
    let updated: [NSManagedObject]
    let deleted: [NSManagedObject]
    var assignedKeys: [ObjectIdentifier: Int64] = [:]
    /// How conflicts are resolved (the context's merge policy).
    let policy: NSMergePolicyType
    /// Values and versions objects take after the commit, where the merge policy changed them.
    var resolutions: [ObjectIdentifier: MergeResolution] = [:]

    init(
        store: NSPersistentStore, inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
        policy: NSMergePolicyType = .errorMergePolicyType
    ) {
        self.store = store
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.policy = policy
    }

    func object(withKey key: Int64) -> NSManagedObject? {
        if let object = inserted.first(where: { assignedKeys[ObjectIdentifier($0)] == key }) { return object }
        return updated.first { $0.primaryKey == key }
    }

    func run(_ writer: any StoreWriter) throws {
        assignedKeys.removeAll()
        var groups: [ObjectIdentifier: [NSManagedObject]] = [:]
        var order: [ObjectIdentifier] = []
        for object in inserted where object.hasTemporaryID {
            let root = ObjectIdentifier(object.entity.layout!.root)
            if groups[root] == nil { order.append(root) }
            groups[root, default: []].append(object)
        }
        for root in order {
            let group = groups[root]!
            let first = try writer.allocatePrimaryKeys(for: group[0].entity, count: group.count)
            for (offset, object) in group.enumerated() { assignedKeys[ObjectIdentifier(object)] = first + Int64(offset) }
        }
        var conflicts: [NSMergeConflict] = []
        let takenOver = try resolveConstraintsBeforeInsert(writer)
        for object in inserted where !takenOver.contains(ObjectIdentifier(object)) {
            try writer.insert(entity: object.entity, primaryKey: key(of: object)!, values: rowValues(of: object))
        }
        for object in updated {
            let ok = try writer.update(
                entity: object.entity, primaryKey: object.primaryKey, expectedVersion: object.version,
                values: rowValues(of: object))
            if !ok {
                if policy == .errorMergePolicyType {
                    conflicts.append(try conflict(object, writer))
                } else if !(try resolveUpdateConflict(object, writer)) {
                    conflicts.append(try conflict(object, writer))
                }
            }
        }
        for object in deleted {
            let expected = policy == .errorMergePolicyType ? object.version : (try writer.currentRow(entity: object.entity, primaryKey: object.primaryKey)?.version ?? object.version)
            if policy == .rollbackMergePolicyType, expected != object.version {
                resolutions[ObjectIdentifier(object)] = MergeResolution(slots: nil, version: expected, undelete: true)
                continue
            }
            let ok = try writer.delete(entity: object.entity, primaryKey: object.primaryKey, expectedVersion: expected)
            if !ok && policy == .errorMergePolicyType { conflicts.append(try conflict(object, writer)) }
        }
        try writeJoins(writer)
        try writeOrders(writer)
        if !conflicts.isEmpty {
            throw CoreDataError.make(
                NSManagedObjectMergeError, "Optimistic locking failure: \(conflicts.count) object(s) changed in the store since they were read.",
                userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts])
        }
    }

    /// Both versions of a conflicting object: what it was read as, and what the store holds now.
    private func conflict(_ object: NSManagedObject, _ writer: any StoreWriter) throws -> NSMergeConflict {
        let row = try writer.currentRow(entity: object.entity, primaryKey: object.primaryKey)
        return NSMergeConflict(
            source: object, newVersion: Int(row?.version ?? 0), oldVersion: Int(object.version),
            cachedSnapshot: object.committedValues(forKeys: nil),
            persistedSnapshot: row.flatMap { row in row.values.map { snapshotDictionary($0, entity: object.entity) } })
    }

    func key(of object: NSManagedObject) -> Int64? {
        object.primaryKey != 0 ? object.primaryKey : assignedKeys[ObjectIdentifier(object)]
    }

    private func reference(to object: NSManagedObject) -> SlotValue {
        guard let key = key(of: object) else { return .null }
        return .reference(ObjectReference(entityNumber: Int32(object.entity.layout!.entityNumber), primaryKey: key))
    }

    /// The object's slots as the store keeps them: to-ones as references, to-many left out.
    func rowValues(of object: NSManagedObject) -> RowValues {
        var slots = object.slots
        for property in object.entity.properties {
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany else { continue }
            if case .toOne(let destination) = slots[relationship.slot] {
                slots[relationship.slot] = destination.isDeleted && destination.managedObjectContext != nil ? .null : reference(to: destination)
            }
        }
        return RowValues(slots: slots)
    }

    /// Positions in ordered one-to-many relationships whose order may have changed, spaced by 1024
    /// as Core Data spaces them (format notes §5.3).
    private func writeOrders(_ writer: any StoreWriter) throws {
        for object in inserted + updated {
            for property in object.entity.properties {
                guard let relationship = property as? NSRelationshipDescription, relationship.isOrdered,
                    let column = relationship.inverseRelationship?.orderColumnName,
                    case .toMany(let current) = object.slots[relationship.slot]
                else { continue }
                if let committed = object.committed, case .toMany(let old) = committed[relationship.slot],
                    old.objects.elementsEqual(current.objects, by: ===)
                {
                    continue
                }
                for (index, member) in current.objects.enumerated() {
                    guard let memberKey = key(of: member) else { continue }
                    try writer.setOrder(entity: member.entity, column: column, primaryKey: memberKey, position: Int64(index + 1) * 1024)
                }
            }
        }
    }

    /// Many-to-many pairs: all of an inserted object's, and the difference for updated ones. Each
    /// pair is written once, from the side that owns the join table.
    private func writeJoins(_ writer: any StoreWriter) throws {
        for object in inserted + updated {
            for property in object.entity.properties {
                guard let relationship = property as? NSRelationshipDescription, let join = relationship.joinTable,
                    join.isOwner || relationship.inverseRelationship == nil,
                    case .toMany(let current) = object.slots[relationship.slot]
                else { continue }
                var before: [NSManagedObject] = []
                if let committed = object.committed, case .toMany(let old) = committed[relationship.slot] {
                    before = old.objects
                }
                let source = key(of: object)!
                for destination in current.objects where !before.contains(where: { $0 === destination }) {
                    if let target = key(of: destination) { try writer.insertJoin(join, source: source, destination: target) }
                }
                for destination in before where !current.contains(destination) {
                    if let target = key(of: destination) { try writer.deleteJoin(join, source: source, destination: target) }
                }
            }
        }
    }
}
