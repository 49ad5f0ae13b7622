/// What creating and reading objects of one entity needs, computed once when the model is frozen
/// (`EntityLayout.objectTemplate`), so that inserting a million objects neither converts default
/// values nor hashes key names a million times.
struct ObjectTemplate {
    /// Property names in slot order: KVC finds a key's slot by comparing these.
    let names: [String]
    /// A new object's slots: default values and `.null`. To-many slots are `.null` here; each new
    /// object gets sets of its own (`toManySlots`).
    let defaultSlots: SlotRow
    /// Slots of to-many relationships.
    let toManySlots: [Int]
    /// Per slot, what saving an instance of `NSManagedObject` itself must check.
    let checks: [SlotCheck]

    /// What validation looks at in one slot.
    enum SlotCheck: Equatable {
        /// A transient property: not validated.
        case none
        /// An attribute without rules or validation predicates: only a missing value (when
        /// required) or a value of the wrong type can fail, both seen from the slot's case.
        case presenceAndType(isOptional: Bool)
        /// An attribute with rules or predicates, or a relationship: the full check.
        case full
    }

    /// Up to this many properties, scanning `names` costs less than hashing a key.
    static let scanLimit = 8

    init(properties: [NSPropertyDescription]) {
        names = properties.map(\.name)
        var slots = SlotRow(repeating: .null, count: properties.count)
        var toMany: [Int] = []
        checks = properties.map { property in
            if property.isTransient { return .none }
            guard let attribute = property as? NSAttributeDescription,
                attribute.rules.isEmpty && attribute.validationPredicates.isEmpty
            else { return .full }
            return .presenceAndType(isOptional: attribute.isOptional)
        }
        for (slot, property) in properties.enumerated() {
            if let attribute = property as? NSAttributeDescription, let value = attribute.defaultValue {
                slots[slot] = SlotValue(attributeValue: value, for: attribute)
            } else if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                toMany.append(slot)
            }
        }
        defaultSlots = slots
        toManySlots = toMany
    }

    /// The slot of the property named `key`, when the entity is small enough to scan; nil means
    /// "not found by scanning" (look in `propertiesByName`).
    @inline(__always)
    func scannedSlot(of key: String) -> Int? {
        guard names.count <= Self.scanLimit else { return nil }
        // The last match, as `propertiesByName` keeps the last of equal names.
        return names.lastIndex(of: key)
    }
}
