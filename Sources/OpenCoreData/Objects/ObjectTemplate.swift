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
    /// Per slot, the type of a settable attribute: an attribute that is not read-only, which KVC
    /// and typed accessors set directly (nil for any other property).
    let settableTypes: [NSAttributeType?]
    /// The names' in-memory words, when the names are unique and a `String` is two words: a key
    /// written as a literal in the user's code has its property name's very words, and comparing
    /// words costs a fraction of comparing strings that differ.
    private let nameWords: [StringWords]

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
    /// Up to this many properties, scanning `nameWords` costs less than hashing a key.
    static let wordScanLimit = 64

    init(properties: [NSPropertyDescription]) {
        names = properties.map(\.name)
        settableTypes = properties.map { property in
            guard let attribute = property as? NSAttributeDescription, !attribute.isReadOnly else { return nil }
            return attribute.attributeType
        }
        nameWords = StringWords.areAvailable && Set(names).count == names.count ? names.map(StringWords.init) : []
        var slots = SlotRow(repeating: .null, count: properties.count)
        var toMany: [Int] = []
        checks = properties.map { property in
            if property.isTransient { return .none }
            guard let attribute = property as? NSAttributeDescription, !(attribute is NSCompositeAttributeDescription),
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

    /// `hint` when the property in that slot is named `key`, else nil.
    @inline(__always)
    func slot(hint: Int, key: String) -> Int? {
        hint >= 0 && hint < names.count && names[hint] == key ? hint : nil
    }

    /// The slot of the property named `key`, when the entity is small enough to scan; nil means
    /// "not found by scanning" (look in `propertiesByName`).
    @inline(__always)
    func scannedSlot(of key: String) -> Int? {
        // Comparing words costs so little that wider entities are scanned for them too; only the
        // string comparison that follows a miss is kept to small ones.
        if !nameWords.isEmpty, names.count <= Self.wordScanLimit {
            let words = StringWords(key)
            if let slot = nameWords.firstIndex(of: words) { return slot }
        }
        guard names.count <= Self.scanLimit else { return nil }
        // The last match, as `propertiesByName` keeps the last of equal names.
        return names.lastIndex(of: key)
    }
}

/// The two words a `String` is made of on 64-bit platforms. Equal words are an equal string (its
/// bytes inline, or the same storage with the same count); equal strings may have different words,
/// so a mismatch proves nothing.
struct StringWords: Equatable {
    private let first: UInt
    private let second: UInt

    /// Whether a `String` is two words here.
    static let areAvailable = MemoryLayout<String>.size == 2 * MemoryLayout<UInt>.size

    /// The words of `string`; only when `areAvailable`.
    @inline(__always)
    init(_ string: String) {
        (first, second) = withUnsafeBytes(of: string) { ($0.load(as: UInt.self), $0.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self)) }
    }
}
