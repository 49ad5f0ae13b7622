/// Key-value access: Core Data's `value(forKey:)` family, with the inverse of every relationship
/// kept in step as the value changes.
extension NSManagedObject {
    /// The value of the property named `key`, or of a key path through to-one relationships
    /// (`"owner.firstName"`). Numbers come back as `NSNumber`, to-many relationships as
    /// `Set<NSManagedObject>` (`NSOrderedSet` when ordered).
    ///
    /// Stops the program, as Core Data raises, when the entity has no such property.
    func kvcValue(forKey key: String) -> Any? {
        let property: NSPropertyDescription
        if let layout = entity.layout, let slot = layout.objectTemplate.scannedSlot(of: key) {
            // A property's own name: no dot to look for (the usual case, checked first).
            property = layout.properties[slot]
        } else {
            // A byte scan: `contains(".")` resolves to Foundation's substring search, which cost
            // more than the rest of the read.
            if key.utf8.contains(UInt8(ascii: ".")) { return value(forKeyPath: key) }
            property = requireProperty(key)
        }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return publicValue(of: property)
    }

    /// The value at a dotted key path through to-one relationships.
    func kvcValue(forKeyPath keyPath: String) -> Any? {
        var object: NSManagedObject = self
        let parts = keyPath.split(separator: ".").map(String.init)
        for (index, part) in parts.enumerated() {
            let value = object.value(forKey: part)
            if index == parts.count - 1 { return value }
            // A composite's elements: `magnitude.richter` reads inside its dictionary.
            if object.entity.propertiesByName[part] is NSCompositeAttributeDescription {
                return CompositeValue.value(at: parts[(index + 1)...], in: value)
            }
            guard let next = value as? NSManagedObject else { return nil }
            object = next
        }
        return nil
    }

    /// Sets the property named `key`. Relationships keep their inverse in step; a value of the wrong
    /// type is kept and refused when the context saves (`NSManagedObjectValidationError`).
    ///
    /// Stops the program, as Core Data raises, when the entity has no such property.
    func kvcSetValue(_ value: Any?, forKey key: String) {
        // The entity (a constant of the object) keeps its layout and the layout's attributes
        // alive, so both are used unretained: a retain and release around the calls below cost
        // more than the rest of the lookup.
        guard let layout = entity.layout.map(Unmanaged.passUnretained) else {
            return setValue(value, for: requireProperty(key), key: key)
        }
        let (slot, settable) = layout._withUnsafeGuaranteedRef { layout -> (Int?, Unmanaged<NSAttributeDescription>?) in
            guard let slot = layout.objectTemplate.scannedSlot(of: key) else { return (nil, nil) }
            // An attribute's own name, the usual case: the template already says it is a
            // settable attribute, so no property is looked up, cast and checked per call.
            guard layout.objectTemplate.settableTypes[slot] != nil else { return (slot, nil) }
            return (slot, .passUnretained(unsafeDowncast(layout.properties[slot], to: NSAttributeDescription.self)))
        }
        if let settable {
            willChangeValue(forKey: key)
            settable._withUnsafeGuaranteedRef { setAttributeValue(value, $0) }
            didChangeValue(forKey: key)
            return
        }
        // The slot found above, or the general lookup (which stops the program for an unknown key).
        setValue(value, for: slot.map { layout.takeUnretainedValue().properties[$0] } ?? requireProperty(key), key: key)
    }

    /// Sets `property` (named `key`) with its inverse kept in step and change notifications: the
    /// general path of KVC's and of the typed accessors' sets.
    func setValue(_ value: Any?, for property: NSPropertyDescription, key: String) {
        precondition(
            !property.isReadOnly,
            "The property '\(key)' of entity '\(entity.name ?? "?")' is read-only.")
        willChangeValue(forKey: key)
        setValue(value, for: property)
        didChangeValue(forKey: key)
    }

    /// The stored value of `key` without access notifications.
    func kvcPrimitiveValue(forKey key: String) -> Any? {
        publicValue(of: requireProperty(key))
    }

    /// Sets the stored value of `key` without change notifications; inverses are not maintained.
    func kvcSetPrimitiveValue(_ value: Any?, forKey key: String) {
        let property = requireProperty(key)
        fireFault()
        registerUndo(of: property)
        if let attribute = property as? NSAttributeDescription {
            slots[attribute.slot] = SlotValue(attributeValue: value, for: attribute)
        } else if let relationship = property as? NSRelationshipDescription {
            slots[relationship.slot] = relationshipSlot(from: value, for: relationship)
        } else {
            // A fetched property: the value stands for its results until the object is refreshed.
            slots[property.slot] = value.map { .object(AnyBox($0)) } ?? .null
            return
        }
        markChanged()
    }

    /// A mutable set that edits the to-many relationship `key` in place, inverses included.
    func kvcMutableSetValue(forKey key: String) -> NSMutableSet {
        guard let relationship = requireProperty(key) as? NSRelationshipDescription, relationship.isToMany else {
            preconditionFailure("'\(key)' of entity '\(entity.name ?? "?")' is not a to-many relationship.")
        }
        return RelationshipMutableSet(owner: self, relationship: relationship)
    }

    /// A mutable ordered set that edits the ordered to-many relationship `key` in place.
    func kvcMutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        guard let relationship = requireProperty(key) as? NSRelationshipDescription, relationship.isToMany else {
            preconditionFailure("'\(key)' of entity '\(entity.name ?? "?")' is not a to-many relationship.")
        }
        return RelationshipMutableOrderedSet(owner: self, relationship: relationship)
    }

    // MARK: Change tracking

    /// The properties changed since the last save or fetch, with their new values.
    ///
    /// - Returns: A dictionary from property name to current value, holding only the properties whose
    ///   value differs from the committed one; a `nil` value appears as `NSNull`. A fault has no
    ///   changes, so it returns an empty dictionary.
    public func changedValues() -> [String: Any] {
        guard !isFault else { return [:] }
        var changes: [String: Any] = [:]
        for property in entity.properties where !property.isTransient || committed == nil {
            // A fetched property's value is a cache of a fetch, never a change.
            if property is NSFetchedPropertyDescription { continue }
            let slot = property.slot
            if let committed, slotsEqual(slots[slot], committed[slot]) { continue }
            if committed == nil, case .null = slots[slot] { continue }
            if committed == nil, case .toMany(let set) = slots[slot], set.objects.isEmpty { continue }
            changes[property.name] = publicValue(of: property) ?? NSNull()
        }
        return changes
    }

    /// The slots of persistent properties whose values differ from the committed ones, for the
    /// history of an update; nil when nothing was committed (all of them count).
    func changedSlots() -> [Int]? {
        guard let committed, !isFault else { return nil }
        return entity.properties.compactMap { property in
            property.isTransient || slotsEqual(slots[property.slot], committed[property.slot]) ? nil : property.slot
        }
    }

    /// The values last saved or fetched for `keys` (all properties when nil).
    ///
    /// - Parameter keys: The names of the properties to report, or `nil` for every persistent property.
    ///   Transient properties are never included.
    /// - Returns: A dictionary from property name to its committed value, with `NSNull` for a `nil`
    ///   attribute; to-many relationships come back as sets of objects. It is empty for an object
    ///   that has never been saved or fetched.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        guard let committed = committed ?? cachedRow else { return [:] }
        var result: [String: Any] = [:]
        for property in entity.properties where !property.isTransient {
            if let keys, !keys.contains(property.name) { continue }
            switch committed[property.slot] {
            case .reference(let reference):
                if let context = managedObjectContext, let store {
                    result[property.name] = context.registeredObject(for: reference, in: store)
                }
            case .toOne(let object): result[property.name] = object
            case .toMany(let set): result[property.name] = Set(set.objects)
            case .objectID(let id): result[property.name] = managedObjectContext?.object(with: id)
            case .unloaded, .objectIDs: continue
            case let slot:
                result[property.name] = slot.publicValue(for: property as? NSAttributeDescription) ?? NSNull()
            }
        }
        return result
    }

    /// The values changed since the last `processPendingChanges`; approximated by `changedValues()`.
    ///
    /// - Returns: The same dictionary as `changedValues()`: property names mapped to their new values.
    public func changedValuesForCurrentEvent() -> [String: Any] { changedValues() }

    // MARK: Internals

    func requireProperty(_ key: String) -> NSPropertyDescription {
        if let layout = entity.layout, let slot = layout.objectTemplate.scannedSlot(of: key) {
            return layout.properties[slot]
        }
        guard let property = entity.propertiesByName[key] else {
            preconditionFailure(
                "[<\(entity.managedObjectClassName ?? "NSManagedObject")> valueForUndefinedKey:]: the entity \(entity.name ?? "?") is not key value coding-compliant for the key \"\(key)\".")
        }
        return property
    }

    @inline(__always)
    func fireFault() {
        if faultState != .filled { fulfillFault() }
    }

    func fulfillFault() {
        if faultState == .fresh {
            applyDefaultValues()
            return
        }
        if faultState == .awaitingAwake {
            faultState = .filled
            awakeFromFetch()
            return
        }
        if hasCachedRow {
            // The cached row is already the values (`cachedRow`), read in place: a copy of it
            // and of the entity's template retained and released them for every fault fired,
            // a fifth of iterating a batched fetch (perf).
            slotValues.prefetch()
            commitCurrentValues()
        } else {
            guard let context = managedObjectContext else {
                preconditionFailure("The fault \(objectID) has no context to be filled from.")
            }
            context.fulfillFault(self)
        }
        faultState = .filled
        awakeFromFetch()
    }

    func publicValue(of property: NSPropertyDescription) -> Any? {
        fireFault()
        if let attribute = property as? NSAttributeDescription {
            return slots[attribute.slot].publicValue(for: attribute)
        }
        if let fetched = property as? NSFetchedPropertyDescription { return fetchedValue(fetched) }
        let relationship = property as! NSRelationshipDescription
        if relationship.isToMany {
            let set = toManySet(relationship)
            if relationship.isOrdered { return NSOrderedSet(array: set.objects) }
            return Set(set.objects)
        }
        return toOneValue(relationship)
    }

    func setValue(_ value: Any?, for property: NSPropertyDescription) {
        if let attribute = property as? NSAttributeDescription {
            setAttributeValue(value, attribute)
            return
        }
        fireFault()
        if property is NSFetchedPropertyDescription {
            // Stands for the fetch's results until the object is refreshed, as a set primitive does.
            slots[property.slot] = value.map { .object(AnyBox($0)) } ?? .null
            return
        }
        let relationship = property as! NSRelationshipDescription
        if relationship.isToMany {
            let wanted = objects(from: value)
            let current = toManySet(relationship).objects
            let wantedIDs = Set(wanted.map(ObjectIdentifier.init))
            for object in current where !wantedIDs.contains(ObjectIdentifier(object)) {
                removeFromMany(relationship, object)
            }
            for object in wanted { addToMany(relationship, object) }
        } else {
            setToOne(relationship, value as? NSManagedObject)
        }
    }

    /// Sets an attribute's value through KVC: converted to the attribute's type, kept only when it
    /// differs, with undo and change tracking.
    @inline(__always)
    func setAttributeValue(_ value: Any?, _ attribute: NSAttributeDescription) {
        fireFault()
        setAttributeSlot(SlotValue(attributeValue: value, for: attribute), attribute)
    }

    /// Sets an attribute's slot to a value already converted to it: kept only when it differs,
    /// with undo and change tracking. The object is not a fault.
    @inline(__always)
    func setAttributeSlot(_ newValue: SlotValue, _ attribute: NSAttributeDescription) {
        setAttributeSlot(newValue, slot: attribute.slot) { attribute }
    }

    /// Sets the attribute in `slot`; `attribute` is asked for only when undo needs it.
    @inline(__always)
    func setAttributeSlot(_ newValue: SlotValue, slot: Int, attribute: () -> NSAttributeDescription) {
        // An equal value changes nothing, and must not make a saved object updated or register
        // an undo. An inserted object without undo manager has neither to fear: writing the
        // value again costs less than comparing it.
        let undoes = contextToken?.hasUndoManager == true
        if !flags.contains(.inserted) || undoes, newValue.sameValue(as: slots[slot]) {
            return
        }
        if undoes { registerUndo(of: attribute()) }
        slots[slot] = newValue
        markChanged()
    }

    func markChanged() {
        if flags.contains(.inserted) {
            // Inserted in an earlier event: this event lists it as updated, as Core Data does.
            if flags.isDisjoint(with: [.changedInEvent, .insertedInEvent]) {
                flags.insert(.changedInEvent)
                managedObjectContext?.insertedObjectDidChange(self)
            }
            return
        }
        guard !flags.contains(.deleted), !flags.isSuperset(of: [.updated, .changedInEvent]) else { return }
        // Listed already when it changed earlier in this event and was refreshed since.
        let listed = flags.contains(.changedInEvent)
        flags.insert([.updated, .changedInEvent])
        managedObjectContext?.objectDidChange(self, listed: listed)
    }

    private func slotsEqual(_ a: SlotValue, _ b: SlotValue) -> Bool {
        switch (a, b) {
        case (.toOne(let x), .reference(let r)), (.reference(let r), .toOne(let x)):
            return x.primaryKey == r.primaryKey && Int32(x.entity.layout?.entityNumber ?? 0) == r.entityNumber
        case (.toMany(let x), .toMany(let y)):
            return x.objects.count == y.objects.count && x.objects.allSatisfy { y.contains($0) }
        case (.toMany, .unloaded), (.unloaded, .toMany), (.toMany, .objectIDs), (.objectIDs, .toMany): return true
        case (.toOne(let x), .objectID(let id)), (.objectID(let id), .toOne(let x)): return x.objectID == id
        default: return a.sameValue(as: b)
        }
    }

    private func objects(from value: Any?) -> [NSManagedObject] {
        switch value {
        case nil: return []
        case let set as Set<NSManagedObject>: return Array(set)
        case let array as [NSManagedObject]: return array
        case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        case let set as Set<AnyHashable>: return set.compactMap { $0.base as? NSManagedObject }
        case let sequence as [Any]: return sequence.compactMap { $0 as? NSManagedObject }
        default:
            preconditionFailure("Unacceptable type of value for to-many relationship of entity '\(entity.name ?? "?")'.")
        }
    }

    private func relationshipSlot(from value: Any?, for relationship: NSRelationshipDescription) -> SlotValue {
        if relationship.isToMany { return .toMany(RelationshipSet(objects(from: value))) }
        if let object = value as? NSManagedObject { return .toOne(object) }
        return .null
    }
}
