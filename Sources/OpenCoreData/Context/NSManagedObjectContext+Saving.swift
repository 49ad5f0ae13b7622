/// Saving: delete propagation, validation, and one store transaction per store.
extension NSManagedObjectContext {
    /// Writes every insert, update and delete to the stores, all or nothing.
    ///
    /// Pending changes are processed (delete rules run), every changed object is validated, then
    /// the coordinator has each store write its objects in one transaction: primary keys from
    /// `Z_MAX`, rows inserted, updated with an optimistic-locking check on `Z_OPT`, deleted, join
    /// rows adjusted. With several stores (model configurations), every store's transaction stays
    /// open until all have written, so a failure in one leaves all of them unchanged; a custom
    /// store (`NSIncrementalStore`, `NSAtomicStore`) gets an `NSSaveChangesRequest` instead. A
    /// child context's save pushes its changes to its parent, writing no store.
    ///
    /// - Throws: a validation error (1550–1680; `NSValidationMultipleErrorsError` with
    ///   `NSDetailedErrorsKey` for several), `NSValidationRelationshipDeniedDeleteError` for a deny
    ///   rule, `NSManagedObjectConstraintMergeError` for a broken uniqueness constraint,
    ///   `NSManagedObjectMergeError` for an optimistic-locking conflict, or a store error. After a
    ///   failed save every store is unchanged and the context still holds its changes, new objects
    ///   with their temporary IDs (a custom store's keep the permanent IDs it gave them), so that
    ///   saving again writes each object once. The codes
    ///   above are of `NSError`s in `NSCocoaErrorDomain`; `NSPersistentStoreSaveError` (134030),
    ///   in the same domain, means the context has no coordinator or the store was opened read-only.
    /// - Complexity: O(changed objects × properties).
    public func save() throws {
        try save(validating: true)
    }

    /// `save()`, with validation left out when `validating` is false: a migration saves its
    /// destination a batch at a time, before the relationships that make objects valid are set,
    /// and validates the whole store once at its end.
    func save(validating: Bool) throws {
        assertOnQueue("save()")
        guard hasChanges || !pendingDeletions.isEmpty else { return }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
        }
        try checkDenyRules()
        processPendingChanges()
        let posted = lastChange
        lastChange = nil
        // The objects-did-change notification just listed new objects: when it listed as many as
        // the context has and each still is (its observers may have changed that), they are the
        // context's new objects in the list's order, and a filtered copy would retain each again.
        let inserted = posted.flatMap { posted in
            let listed = posted.inserted.objects
            let same = listed.count == insertedCount && listed.allSatisfy { owns($0) && $0.flags.contains(.inserted) }
            return same ? listed : nil
        } ?? liveInserted
        // In the order the save's objects-did-change notification listed them when it listed all,
        // so that the did-save notification can reuse its set.
        let updated = posted.flatMap { $0.updated.covers(updatedMap) ? $0.updated.objects : nil } ?? Array(updatedMap.values)
        let deleted = deletedList.filter { $0.primaryKey != 0 }
        NotificationCenter.default.post(name: NSManagedObjectContext.willSaveObjectsNotification, object: self)
        for object in inserted { object.willSave() }
        for object in updated { object.willSave() }
        for object in deleted { object.willSave() }
        if validating { try validate(inserted: inserted, updated: updated, deleted: deleted) }
        if let parent {
            pushChanges(to: parent, inserted: inserted, updated: updated, deleted: deleted)
            _ = finishSave(inserted: inserted, updated: updated, deleted: deleted, writes: [], posted: posted)
            return
        }

        var writes: [SaveWrite] = []
        var resolutions: [ObjectIdentifier: MergeResolution] = [:]
        let policy = (mergePolicy as? NSMergePolicy)?.mergeType ?? .errorMergePolicyType
        let stores = coordinator.persistentStores
        for store in stores {
            // With one store, every new object is the store's without asking the coordinator.
            let mine = { (object: NSManagedObject) in
                object.store === store
                    || (object.store == nil && (stores.count == 1 || coordinator.store(for: object.entity) === store))
            }
            // The whole list when all are the store's: a filtered copy retains every element.
            let storeInserted = inserted.allSatisfy(mine) ? inserted : inserted.filter(mine)
            let storeUpdated = updated.allSatisfy(mine) ? updated : updated.filter(mine)
            let storeDeleted = deleted.filter(mine)
            if storeInserted.isEmpty && storeUpdated.isEmpty && storeDeleted.isEmpty { continue }
            let write = SaveWrite(
                store: store, inserted: storeInserted, updated: storeUpdated, deleted: storeDeleted, policy: policy)
            write.author = transactionAuthor
            write.contextName = name
            writes.append(write)
        }
        // The coordinator writes every store's share or none: objects keep their temporary IDs
        // and changes after a failure in any store.
        var violating: SaveWrite?
        do {
            try coordinator.save(
                writes.map { write in
                    if let executor = coordinator.executor(of: write.store) {
                        return StoreSaveShare(store: write.store, work: .request { [unowned self] in try saveChanges(of: write, through: executor) })
                    }
                    return StoreSaveShare(
                        store: write.store,
                        work: .rows { writer in
                            do {
                                try write.run(writer)
                            } catch let violation as UniquenessViolation {
                                violating = write
                                throw violation
                            }
                        })
                })
        } catch let violation as UniquenessViolation {
            if let violating { throw constraintError(violation, write: violating) }
            throw violation
        }
        for write in writes {
            for (id, resolution) in write.resolutions { resolutions[id] = resolution }
        }
        applyResolutions(resolutions, to: [inserted, updated, deleted].joined())
        let stillDeleted = resolutions.isEmpty ? deleted : deleted.filter { $0.isDeleted }
        // A pinned context reads what it saved, and what others saved before it.
        advanceQueryGeneration()
        let emptied = finishSave(inserted: inserted, updated: updated, deleted: stillDeleted, writes: writes, posted: posted)
        applyResolvedVersions(resolutions, to: [inserted, updated].joined())
        for write in writes where !write.derivedValues.isEmpty { applyDerivedValues(write.derivedValues, from: write.store) }
        // Only when every object these hold is still registered: no deletion, nothing inserted
        // and deleted again before the save.
        let allRegistered = deleted.isEmpty && posted?.deleted.objects.isEmpty != false && emptied.count == inserted.count
        if allRegistered {
            let count = inserted.count + updated.count
            SecondThread.release((consume posted, consume inserted, consume updated, consume writes, emptied), count: count)
        }
    }

    /// Writes `write`'s objects through a store that runs its own save request: permanent IDs
    /// for the new objects first (the store keeps them under those), then the request.
    private func saveChanges(of write: SaveWrite, through store: any RequestExecutingStore) throws {
        try obtainPermanentIDs(for: write.inserted.filter(\.hasTemporaryID))
        let request = NSSaveChangesRequest(
            inserted: Set(write.inserted), updated: Set(write.updated), deleted: Set(write.deleted), locked: nil)
        _ = try store.executeRequest(request, in: self)
        write.insertedKeys = write.inserted.map(\.primaryKey)
    }

    /// Makes the saved objects clean and registered under their permanent IDs, posts the did-save
    /// notifications, and returns the context's change lists it emptied (for the caller to release).
    private func finishSave(
        inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], writes: [SaveWrite],
        posted: PostedChanges?
    ) -> [NSManagedObject] {
        let insertedSet = posted?.inserted.set(for: inserted) ?? sparseSet(inserted)
        let updatedSet = posted?.updated.set(for: updated) ?? sparseSet(updated)
        let deletedSet = posted?.deleted.set(for: deleted) ?? sparseSet(deleted)
        var permanentIDs: [(NSManagedObjectID, NSManagedObjectID)] = []
        // The set of the new objects' IDs, when one write made them all on another thread.
        var insertedIDSet: Set<NSManagedObjectID>?
        for write in writes {
            // Made from these same keys: every position with a key has its ID.
            let made = write.permanentIDs?.wait()
            let keys = write.insertedKeys
            write.inserted.forEachBorrowed { position, object in
                let key = keys[position]
                guard key != 0 else { return }
                let temporary = object.temporaryID
                object.assignPermanentID(store: write.store, primaryKey: key)
                if let made, let id = made.ids[position] { object.rememberPermanentID(id) }
                if let temporary {
                    // Children still know the object by its temporary ID (see propagatePermanentIDs).
                    registry[temporary.key] = nil
                    permanentIDs.append((temporary, object.objectID))
                }
            }
            // Every new object's ID made there (none had a key before the save).
            if let made, made.set.count == inserted.count { insertedIDSet = made.set }
        }
        let saved = registerSavedInserts(inserted)
        for object in updated {
            object.flags = []
            object.version += 1
            // A copy of its to-many sets: edited in place afterwards, a shared set would read as
            // committed and the next save would write no change of membership or order.
            object.commitCurrentValues()
        }
        for object in deleted {
            registry[object.registryKey] = nil
            object.flags = []
        }
        let emptied = insertedList
        insertedList = []
        insertedCount = 0
        updatedMap.removeAll()
        deletedList.removeAll()
        resetEvent()
        if !permanentIDs.isEmpty { propagatePermanentIDs(permanentIDs) }
        inserted.forEachBorrowed { _, object in object.didSave() }
        for object in updated { object.didSave() }
        for object in deleted {
            object.didSave()
            // Its ID stays as it was (Core Data's deleted objects keep theirs): leaving the
            // context that guarantees its store, it keeps the ID made now (`managedObjectContext`).
            object.managedObjectContext = nil
        }
        if let saved { savedObjectsHandler?(saved, updated, deleted) }
        var userInfo: [AnyHashable: Any] = [
            NSInsertedObjectsKey: insertedSet, NSUpdatedObjectsKey: updatedSet, NSDeletedObjectsKey: deletedSet,
        ]
        // With history, the token after this save, under the key Core Data uses.
        var tokens: [String: Int64] = [:]
        for write in writes { if let number = write.historyNumber { tokens[write.store.identifier] = number } }
        if !tokens.isEmpty { userInfo[NSManagedObjectContext.newChangeTokenKey] = NSPersistentHistoryToken(storeTokens: tokens) }
        NotificationCenter.default.post(name: NSManagedObjectContext.didSaveObjectsNotification, object: self, userInfo: userInfo)
        let insertedIDs = insertedIDSet ?? sparseSet(inserted.lazy.map(\.objectID))
        let updatedIDs = sparseSet(updated.lazy.map(\.objectID))
        let deletedIDs = sparseSet(deleted.lazy.map(\.objectID))
        NotificationCenter.default.post(
            name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self,
            userInfo: [NSInsertedObjectIDsKey: insertedIDs, NSUpdatedObjectIDsKey: updatedIDs, NSDeletedObjectIDsKey: deletedIDs])
        return emptied
    }

    /// Makes the save's new objects clean and registers them under their permanent keys. New
    /// objects come in long runs of one entity and store, so the registry's table is looked up
    /// once a run rather than through a key made for every object (which cost a dozen retains and
    /// releases an object in a million-object save).
    ///
    /// - Parameter inserted: The save's new objects.
    /// - Returns: Their rows, for `savedObjectsHandler`; nil when no handler is set.
    /// - Complexity: O(*n*).
    private func registerSavedInserts(_ inserted: [NSManagedObject]) -> SavedInserts? {
        var table: PrimaryKeyTable?
        var tableEntity: ObjectIdentifier?
        var tableStore: ObjectIdentifier?
        let registry = self.registry
        var saved = savedObjectsHandler == nil ? nil : SavedInserts(objects: inserted)
        saved?.keys.reserveCapacity(inserted.count)
        // Under the lock throughout: nothing here releases an object (a new object has no
        // committed values to replace) or runs the app's code.
        registry.withLock {
            inserted.forEachBorrowed { position, object in
                object.flags = []
                object.version = 1
                object.commitCurrentValues()
                guard object.primaryKey > 0, let store = object.store else {
                    registry[object.registryKey] = object
                    saved?.keys.append(0)
                    return
                }
                let entity = ObjectIdentifier(object.entity)
                if table == nil || entity != tableEntity || ObjectIdentifier(store) != tableStore {
                    let root = Int32(object.entity.layout?.root.layout?.entityNumber ?? 0)
                    table = registry.pagedTable(store: store, root: root)
                    tableEntity = entity
                    tableStore = ObjectIdentifier(store)
                    saved?.runs.append(SavedInserts.Run(start: position, entity: object.entity, store: store))
                }
                saved?.keys.append(object.primaryKey)
                registry.put(object, in: table.unsafelyUnwrapped.slot(for: object.primaryKey))
            }
        }
        return saved
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
                for relationship in object.entity.relationshipList {
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
        guard pendingDeletions.contains(where: { $0.entity.layout?.hasDenyRule ?? true }) else { return }
        var doomed = Set<ObjectIdentifier>()
        var queue = pendingDeletions
        while let object = queue.popLast() {
            guard doomed.insert(ObjectIdentifier(object)).inserted else { continue }
            for relationship in object.entity.relationshipList where relationship.deleteRule == .cascadeDeleteRule {
                queue += destinations(of: relationship, in: object)
            }
        }
        var errors: [NSError] = []
        for object in pendingDeletions {
            for relationship in object.entity.relationshipList where relationship.deleteRule == .denyDeleteRule {
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
            do { try body() } catch let error as NSError { errors += CoreDataError.separated(error) }
        }
        inserted.forEachBorrowed { _, object in collect { try object.validateForInsert() } }
        for object in updated { collect { try object.validateForUpdate() } }
        for object in deleted { collect { try object.validateForDelete() } }
        if let error = CoreDataError.combining(errors) { throw error }
    }

    private func constraintError(_ violation: UniquenessViolation, write: SaveWrite) -> NSError {
        let conflicting = write.object(withKey: violation.primaryKey, of: violation.entity)
        // The store names the constraint in the model's terms; one that cannot tell leaves the
        // first of the entity's (or its ancestors') constraints to be named.
        var names = violation.constraint ?? []
        var entity: NSEntityDescription? = violation.entity
        while names.isEmpty, let e = entity {
            names = e.uniquenessConstraints.first.map(VersionHasher.constraintNames) ?? []
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
    /// The primary keys this write gave to `inserted`, by position; 0 where the object had one.
    var insertedKeys: [Int64] = []
    /// How conflicts are resolved (the context's merge policy).
    let policy: NSMergePolicyType
    /// Values and versions objects take after the commit, where the merge policy changed them.
    var resolutions: [ObjectIdentifier: MergeResolution] = [:]
    /// The same keys by object, built only when a relationship asks for an inserted object's key.
    var keysByObject: [ObjectIdentifier: Int64]?
    /// Who saves, for the store's persistent history: the context's `transactionAuthor` and `name`.
    var author: String?
    var contextName: String?
    /// The number of the history transaction the store recorded for this write, if it did.
    var historyNumber: Int64?
    /// The derived attribute values the store computed in this write, for the context's objects.
    var derivedValues: [DerivedValue] = []
    /// The permanent IDs of `inserted`, made on another thread while their rows are written, for a
    /// large save without constraint take-overs.
    var permanentIDs: PermanentIDs?
    /// What writing an entity's rows needs to know beyond its slots, by entity.
    private var entityFacts: [ObjectIdentifier: EntityFacts] = [:]
    private var lastFacts: (entity: NSEntityDescription, facts: EntityFacts)?

    private struct EntityFacts {
        /// Slots of to-one relationships, written as references.
        var toOneSlots: [Int] = []
        /// Slots of to-many relationships, which a stored row never holds (their objects are
        /// this context's: a store that kept them would hand them to other contexts).
        var toManySlots: [Int] = []
        /// Whether the entity has many-to-many relationships whose join rows this side writes.
        var writesJoins = false
        /// Whether the entity has ordered to-many relationships.
        var writesOrders = false
    }

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

    /// The written object of `entity`'s hierarchy whose row has `key`. Keys are numbered per
    /// hierarchy (each has its own table), so another hierarchy's object may have the same key.
    func object(withKey key: Int64, of entity: NSEntityDescription) -> NSManagedObject? {
        let root = entity.rootNumber
        if let index = insertedKeys.indices.first(where: { insertedKeys[$0] == key && inserted[$0].entity.rootNumber == root }) {
            return inserted[index]
        }
        return updated.first { $0.primaryKey == key && $0.entity.rootNumber == root }
    }

    func run(_ writer: any StoreWriter) throws {
        historyNumber = nil
        writer.describeTransaction(author: author, contextName: contextName) { [unowned self] in historyNumber = $0 }
        let recordsChanges = NSPersistentStoreCoordinator.historyIfTracked(store) != nil
        insertedKeys = Array(repeating: 0, count: inserted.count)
        keysByObject = nil
        // A write run again (after a failed attempt) makes its IDs again from its new keys.
        _ = permanentIDs?.wait()
        permanentIDs = nil
        // Positions of the new objects of each hierarchy, hierarchies in order of first appearance.
        var groups: [(root: NSEntityDescription, positions: [Int])] = []
        // And where each run of one entity begins, for the IDs made on another thread.
        var runs: [PermanentIDs.EntityRun] = []
        inserted.forEachBorrowed { position, object in
            guard object.hasTemporaryID else { return }
            let entity = object.entity
            if runs.last?.entity !== entity { runs.append(PermanentIDs.EntityRun(start: position, entity: entity)) }
            let root = entity.layout!.root
            if let last = groups.indices.last, groups[last].root === root {
                groups[last].positions.append(position)
            } else if let index = groups.firstIndex(where: { $0.root === root }) {
                groups[index].positions.append(position)
            } else {
                groups.append((root, [position]))
            }
        }
        for group in groups {
            let first = try writer.allocatePrimaryKeys(for: inserted[group.positions[0]].entity, count: group.positions.count)
            for (offset, position) in group.positions.enumerated() { insertedKeys[position] = first + Int64(offset) }
        }
        var conflicts: [NSMergeConflict] = []
        let takenOver = try resolveConstraintsBeforeInsert(writer)
        if takenOver.isEmpty { permanentIDs = PermanentIDs.start(runs: runs, keys: insertedKeys, identity: store.identity) }
        try inserted.forEachBorrowed { position, object in
            guard !takenOver.contains(position) else { return }
            let key = object.primaryKey != 0 ? object.primaryKey : insertedKeys[position]
            try writer.insert(entity: object.entity, primaryKey: key, values: rowValues(of: object))
        }
        for object in updated {
            var values = rowValues(of: object)
            if recordsChanges { values.changedSlots = object.changedSlots() }
            let ok = try writer.update(
                entity: object.entity, primaryKey: object.primaryKey, expectedVersion: object.version, values: values)
            if !ok {
                let resolved = try policy != .errorMergePolicyType && resolveUpdateConflict(object, writer)
                if !resolved { conflicts.append(try conflict(object, writer)) }
            }
        }
        for object in deleted {
            var expected = object.version
            if policy != .errorMergePolicyType {
                expected = try writer.currentRow(entity: object.entity, primaryKey: object.primaryKey)?.version ?? object.version
                if policy == .rollbackMergePolicyType, expected != object.version {
                    resolutions[ObjectIdentifier(object)] = MergeResolution(slots: nil, version: expected, undelete: true)
                    continue
                }
            }
            let ok = try writer.delete(entity: object.entity, primaryKey: object.primaryKey, expectedVersion: expected)
            if !ok && policy == .errorMergePolicyType { conflicts.append(try conflict(object, writer)) }
        }
        let model = store.persistentStoreCoordinator?.managedObjectModel
        if model?.hasJoinTables != false { try writeJoins(writer) }
        if model?.hasOrderedRelationships != false { try writeOrders(writer) }
        derivedValues = model?.hasDerivedAttributes == true ? try writer.derivedValues() : []
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
        if object.primaryKey != 0 { return object.primaryKey }
        if keysByObject == nil {
            var keys: [ObjectIdentifier: Int64] = [:]
            for (position, key) in insertedKeys.enumerated() where key != 0 { keys[ObjectIdentifier(inserted[position])] = key }
            keysByObject = keys
        }
        return keysByObject![ObjectIdentifier(object)]
    }

    private func facts(for entity: NSEntityDescription) -> EntityFacts {
        if let lastFacts, lastFacts.entity === entity { return lastFacts.facts }
        let facts: EntityFacts
        if let known = entityFacts[ObjectIdentifier(entity)] {
            facts = known
        } else {
            var found = EntityFacts()
            for property in entity.properties {
                guard let relationship = property as? NSRelationshipDescription else { continue }
                if relationship.isToMany { found.toManySlots.append(relationship.slot) } else { found.toOneSlots.append(relationship.slot) }
                if relationship.isOrdered { found.writesOrders = true }
                if relationship.isManyToMany { found.writesJoins = true }
            }
            entityFacts[ObjectIdentifier(entity)] = found
            facts = found
        }
        lastFacts = (entity, facts)
        return facts
    }

    private func reference(to object: NSManagedObject) -> SlotValue {
        guard let key = key(of: object) else { return .null }
        return .reference(ObjectReference(entityNumber: Int32(object.entity.layout!.entityNumber), primaryKey: key))
    }

    /// The object's slots as the store keeps them: to-ones as references, to-many left out
    /// (`.unloaded`, as a store reads them back).
    func rowValues(of object: NSManagedObject) -> RowValues {
        var slots = object.slots
        let facts = facts(for: object.entity)
        for slot in facts.toOneSlots {
            if case .toOne(let destination) = slots[slot] {
                slots[slot] = destination.isDeleted && destination.managedObjectContext != nil ? .null : reference(to: destination)
            }
        }
        for slot in facts.toManySlots { slots[slot] = .unloaded }
        return RowValues(slots: slots)
    }

    /// Positions in ordered to-many relationships whose order may have changed, spaced by 1024
    /// as Core Data spaces them (docs/sqlite-format.md §5.3): in the member's row for a
    /// one-to-many, in the pair's row of the join table for a many-to-many (after `writeJoins`
    /// wrote the pairs).
    private func writeOrders(_ writer: any StoreWriter) throws {
        for object in [inserted, updated].joined() where facts(for: object.entity).writesOrders {
            for property in object.entity.properties {
                guard let relationship = property as? NSRelationshipDescription, relationship.isOrdered,
                    case .toMany(let current) = object.slots[relationship.slot]
                else { continue }
                if let committed = object.committed, case .toMany(let old) = committed[relationship.slot],
                    old.objects.elementsEqual(current.objects, by: ===)
                {
                    continue
                }
                let source = relationship.isManyToMany ? key(of: object) : nil
                for (index, member) in current.objects.enumerated() {
                    guard let memberKey = key(of: member) else { continue }
                    let position = Int64(index + 1) * 1024
                    if let source {
                        try writer.setPairOrder(of: relationship, source: source, destination: memberKey, position: position)
                    } else {
                        try writer.setOrder(in: relationship, member: member.entity, primaryKey: memberKey, position: position)
                    }
                }
            }
        }
    }

    /// Many-to-many pairs: all of an inserted object's, and the difference for updated ones, from
    /// each side; the store keeps each pair once.
    private func writeJoins(_ writer: any StoreWriter) throws {
        for object in [inserted, updated].joined() where facts(for: object.entity).writesJoins {
            for property in object.entity.properties {
                guard let relationship = property as? NSRelationshipDescription, relationship.isManyToMany,
                    case .toMany(let current) = object.slots[relationship.slot]
                else { continue }
                var before: [NSManagedObject] = []
                if let committed = object.committed, case .toMany(let old) = committed[relationship.slot] {
                    before = old.objects
                }
                let source = key(of: object)!
                for destination in current.objects where !before.contains(where: { $0 === destination }) {
                    if let target = key(of: destination) { try writer.insertPair(of: relationship, source: source, destination: target) }
                }
                for destination in before where !current.contains(destination) {
                    if let target = key(of: destination) { try writer.deletePair(of: relationship, source: source, destination: target) }
                }
            }
        }
    }
}

/// A set of `elements` in a table at most a quarter full. The save notifications' sets hold
/// Foundation objects whose `==` is a dynamic `isEqual(_:)` call with a cast, made for every
/// occupied bucket an insertion probes: at the default fill, building the sets of a
/// million-object save spent more in those calls than in hashing.
func sparseSet<S: Sequence>(_ elements: S) -> Set<S.Element> where S.Element: Hashable {
    var set = Set<S.Element>(sparseFor: elements.underestimatedCount)
    for element in elements { set.insert(element) }
    return set
}

extension Set {
    /// An empty set whose table stays at most a quarter full with `count` elements (`sparseSet`):
    /// Swift fills a table to three quarters, so twice the count. Four times gave an eighth, with
    /// twice the pages to fault in and no faster (ninth round).
    init(sparseFor count: Int) { self.init(minimumCapacity: count * 2) }
}

/// A save's new objects as `savedObjectsHandler` is told of them: the objects in the order saved,
/// each one's primary key, and where each run of one entity and store begins. Recorded while the
/// save registers each object (`registerSavedInserts`), with the object in hand: naming a million
/// new rows afterwards then reads these arrays, not a million objects again (a cache miss each).
package struct SavedInserts {
    /// Where a run of objects with rows of one entity and one store begins.
    package struct Run {
        /// The position of the run's first object.
        package let start: Int
        package let entity: NSEntityDescription
        package let store: NSPersistentStore
    }

    /// The objects, in the order saved.
    package let objects: [NSManagedObject]
    /// Each object's primary key, in the same order; 0 for an object saved without a row of its
    /// own (whose ID then names it).
    package fileprivate(set) var keys: [Int64] = []
    /// The runs, in order; an object with a key belongs to the last run starting at or before it.
    package fileprivate(set) var runs: [Run] = []

    fileprivate init(objects: [NSManagedObject]) {
        self.objects = objects
    }
}
