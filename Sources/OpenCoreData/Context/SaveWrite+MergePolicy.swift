/// How a save resolves conflicts under the context's merge policy, as Core Data documents it:
/// property by property for the two "trump" policies, whole objects for overwrite and rollback.
struct MergeResolution {
    /// The slots the object takes after the commit; nil to keep its own.
    var slots: SlotRow?
    /// The row version the object has after the commit.
    var version: Int64
    /// The deletion was dropped (rollback of a conflicting delete).
    var undelete = false
}

extension SaveWrite {
    /// Resolves an optimistic-locking conflict on `object` and writes the result; false when the
    /// row no longer exists.
    func resolveUpdateConflict(_ object: NSManagedObject, _ writer: any StoreWriter) throws -> Bool {
        guard let row = try writer.currentRow(entity: object.entity, primaryKey: object.primaryKey),
            let stored = row.values
        else { return false }
        let mine = rowValues(of: object).slots
        let original = object.committed ?? stored
        var merged = mine
        for property in object.entity.properties where isStored(property) {
            let slot = property.slot
            let objectChanged = !same(mine[slot], original[slot])
            let storeChanged = !same(stored[slot], original[slot])
            switch policy {
            case .mergeByPropertyStoreTrumpMergePolicyType: merged[slot] = storeChanged ? stored[slot] : mine[slot]
            case .mergeByPropertyObjectTrumpMergePolicyType: merged[slot] = objectChanged ? mine[slot] : stored[slot]
            case .overwriteMergePolicyType: merged[slot] = mine[slot]
            case .rollbackMergePolicyType, .errorMergePolicyType: merged[slot] = stored[slot]
            }
        }
        if policy == .rollbackMergePolicyType {
            resolutions[ObjectIdentifier(object)] = MergeResolution(slots: merged, version: row.version)
            return true
        }
        guard try writer.update(entity: object.entity, primaryKey: object.primaryKey, expectedVersion: row.version, values: RowValues(slots: merged)) else {
            return false
        }
        resolutions[ObjectIdentifier(object)] = MergeResolution(slots: merged, version: row.version + 1)
        return true
    }

    /// Under a policy other than the error policy, an inserted object whose uniqueness-constraint
    /// values match an existing row becomes that row: the object trump and overwrite policies
    /// write the object's values over it, the store trump and rollback policies give the object
    /// the row's values. Returns the positions of the objects that need no insert.
    func resolveConstraintsBeforeInsert(_ writer: any StoreWriter) throws -> Set<Int> {
        // Without a constraint there is nothing to collide with: the pass below would make the
        // row values of every new object for nothing (a tenth of a million-object save).
        guard policy != .errorMergePolicyType, store.persistentStoreCoordinator?.managedObjectModel.hasUniquenessConstraints ?? true else {
            return []
        }
        var takenOver = Set<Int>()
        // New objects come in runs of one entity: whether it is constrained is asked once a run.
        var last: (entity: NSEntityDescription, isConstrained: Bool)?
        for (position, object) in inserted.enumerated() {
            let entity = object.entity
            if last?.entity !== entity { last = (entity, Self.isConstrained(entity)) }
            guard last?.isConstrained == true else { continue }
            let values = rowValues(of: object)
            guard let existing = try existingRow(matching: object, values: values, writer),
                let row = try writer.currentRow(entity: object.entity, primaryKey: existing)
            else { continue }
            let id = ObjectIdentifier(object)
            insertedKeys[position] = existing
            keysByObject = nil
            takenOver.insert(position)
            switch policy {
            case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType:
                var merged = values.slots
                if policy == .mergeByPropertyObjectTrumpMergePolicyType, let stored = row.values {
                    // Properties the new object left empty keep the row's values.
                    for property in object.entity.properties where isStored(property) && merged[property.slot].isNull {
                        merged[property.slot] = stored[property.slot]
                    }
                }
                _ = try writer.update(entity: object.entity, primaryKey: existing, expectedVersion: row.version, values: RowValues(slots: merged))
                resolutions[id] = MergeResolution(slots: merged, version: row.version + 1)
            default:
                resolutions[id] = MergeResolution(slots: row.values, version: row.version)
            }
        }
        return takenOver
    }

    /// Whether `entity` or an entity it inherits from has a uniqueness constraint.
    private static func isConstrained(_ entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = entity
        while let checked = current {
            if !checked.uniquenessConstraints.isEmpty { return true }
            current = checked.superentity
        }
        return false
    }

    private func existingRow(matching object: NSManagedObject, values: RowValues, _ writer: any StoreWriter) throws -> Int64? {
        var entity: NSEntityDescription? = object.entity
        while let current = entity {
            for constraint in current.uniquenessConstraints {
                let slots = VersionHasher.constraintNames(constraint).compactMap { current.propertiesByName[$0]?.slot }
                if let key = try writer.rowMatching(entity: object.entity, slots: slots, values: values, excluding: key(of: object) ?? 0) {
                    return key
                }
            }
            entity = current.superentity
        }
        return nil
    }

    private func isStored(_ property: NSPropertyDescription) -> Bool {
        !property.isTransient && !((property as? NSRelationshipDescription)?.isToMany ?? false)
    }

    private func same(_ a: SlotValue, _ b: SlotValue) -> Bool {
        switch (a, b) {
        case (.toOne(let x), .reference(let r)), (.reference(let r), .toOne(let x)):
            return x.primaryKey == r.primaryKey && Int32(x.entity.layout!.entityNumber) == r.entityNumber
        case (.toOne(let x), .toOne(let y)): return x === y
        default: return a.sameValue(as: b)
        }
    }

    /// A stored row as Core Data's snapshot dictionaries show it: property name to value.
    func snapshotDictionary(_ slots: SlotRow, entity: NSEntityDescription) -> [String: Any] {
        var result: [String: Any] = [:]
        for property in entity.properties where isStored(property) {
            result[property.name] = slots[property.slot].publicValue(for: property as? NSAttributeDescription) ?? NSNull()
        }
        return result
    }
}

extension NSManagedObjectContext {
    /// After `finishSave`, gives resolved objects the row versions the store now has.
    func applyResolvedVersions(_ resolutions: [ObjectIdentifier: MergeResolution], to objects: some Sequence<NSManagedObject>) {
        guard !resolutions.isEmpty else { return }
        for object in objects {
            if let resolution = resolutions[ObjectIdentifier(object)] { object.version = resolution.version }
        }
    }

    /// Gives objects the values their conflicts were resolved to, before the save finishes.
    func applyResolutions(_ resolutions: [ObjectIdentifier: MergeResolution], to objects: some Sequence<NSManagedObject>) {
        guard !resolutions.isEmpty else { return }
        for object in objects {
            guard let resolution = resolutions[ObjectIdentifier(object)] else { continue }
            if let slots = resolution.slots {
                var merged = slots
                for property in object.entity.properties where property.isTransient || ((property as? NSRelationshipDescription)?.isToMany ?? false) {
                    merged[property.slot] = object.slots[property.slot]
                }
                object.slots = merged
            }
            if resolution.undelete {
                object.flags.remove(.deleted)
                deletedList.removeAll { $0 === object }
            }
        }
    }
}
