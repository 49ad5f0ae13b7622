/// The rows of an `NSBatchInsertRequest`, read one at a time as the store writes them, so that a
/// handler's million objects never sit in memory together.
///
/// Each row is converted as `setValue(_:forKey:)` converts values, into the slots of the entity's
/// stored attributes, starting from their default values. Everything a row needs to know about
/// the entity is looked up once, here, not per row.
package final class BatchInsertRows {
    enum Source {
        case dictionaries([[String: Any]])
        case dictionaryHandler((NSMutableDictionary) -> Bool)
        case objects((NSManagedObject) -> Bool)
    }

    let entity: NSEntityDescription
    /// The stored attributes, whose slots a row fills and whose columns the store writes.
    package let attributes: [NSAttributeDescription]
    /// A new object's slots: the attributes' default values.
    package let defaults: SlotRow

    private let attributeSlots: [Int]
    /// Per slot: the stored attribute there, nil for a relationship or a transient attribute.
    private let storedAttributes: [NSAttributeDescription?]
    /// Property names in slot order, scanned for small entities as KVC does.
    private let names: [String]
    /// Per slot, how a value is converted.
    private let kinds: [Kind]
    private let slotsByName: [String: Int]?

    private let dictionaries: [[String: Any]]
    private let dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    private let objectHandler: ((NSManagedObject) -> Bool)?
    /// The one dictionary the dictionary handler fills, emptied before each call.
    private let dictionary: BatchInsertDictionary
    // Unchecked: rows are read on one thread at a time, and the runtime's exclusivity check
    // cost a call a row.
    @exclusivity(unchecked) private var index = 0
    @exclusivity(unchecked) private var finished = false

    init(entity: NSEntityDescription, source: Source) {
        self.entity = entity
        let properties = entity.properties
        // Stored: with a column, or leaf columns for a composite.
        storedAttributes = properties.map { property in
            guard let attribute = property as? NSAttributeDescription, !attribute.isTransient, !attribute.storedColumns.isEmpty
            else { return nil }
            return attribute
        }
        attributes = storedAttributes.compactMap { $0 }
        attributeSlots = attributes.map(\.slot)
        names = properties.map(\.name)
        kinds = properties.map { property in
            switch (property as? NSAttributeDescription)?.attributeType {
            case .stringAttributeType: .string
            case .dateAttributeType: .date
            case .booleanAttributeType: .boolean
            default: .other
            }
        }
        slotsByName = names.count > ObjectTemplate.scanLimit ? entity.propertiesByName.mapValues(\.slot) : nil
        defaults = entity.layout!.objectTemplate.defaultSlots
        dictionary = BatchInsertDictionary(names: attributes.map(\.name))
        switch source {
        case .dictionaries(let rows):
            dictionaries = rows
            dictionaryHandler = nil
            objectHandler = nil
        case .dictionaryHandler(let handler):
            dictionaries = []
            dictionaryHandler = handler
            objectHandler = nil
        case .objects(let handler):
            dictionaries = []
            dictionaryHandler = nil
            objectHandler = handler
        }
    }

    /// Fills `slots` (a copy of `defaults` the caller owns) with the next row's values.
    ///
    /// - Returns: false when there are no more rows.
    /// - Throws: `NSManagedObjectValidationError` for a value of the wrong type; `NSCoreDataError`
    ///   for a key that is not an attribute of the entity.
    package func next(into slots: inout SlotRow) throws -> Bool {
        guard !finished else { return false }
        for slot in attributeSlots { slots[slot] = defaults[slot] }
        if let dictionaryHandler {
            dictionary.reset()
            if dictionaryHandler(dictionary) {
                finished = true
                return false
            }
            let values = dictionary.attributeValues
            for place in 0..<dictionary.attributeCapacity {
                guard let value = values[place] else { continue }
                try store(value, attributes[place], in: &slots)
            }
            for (key, value) in dictionary.others {
                try set(value, forKey: key.base as? String ?? "\(key.base)", in: &slots)
            }
        } else if let objectHandler {
            let object = entity.managedObjectClass.init(_entityClassOf: entity, insertInto: nil)
            if objectHandler(object) {
                finished = true
                return false
            }
            object.fireFault()
            for attribute in attributes {
                let slot = object.slots[attribute.slot]
                if case .invalid(let box) = slot { throw wrongType(box.value, attribute) }
                slots[attribute.slot] = slot
            }
        } else {
            guard index < dictionaries.count else { return false }
            for (key, value) in dictionaries[index] { try set(value, forKey: key, in: &slots) }
        }
        index += 1
        return true
    }

    /// The values of the row `next` filled last, by attribute name, for errors.
    package func snapshot(_ slots: SlotRow) -> [String: Any] {
        var values: [String: Any] = [:]
        for attribute in attributes { values[attribute.name] = slots[attribute.slot].publicValue(for: attribute) ?? NSNull() }
        return values
    }

    private func set(_ value: Any, forKey key: String, in slots: inout SlotRow) throws {
        let slot = slotsByName.map { $0[key] } ?? names.lastIndex(of: key)
        guard let slot, let attribute = storedAttributes[slot] else {
            if let slot, let attribute = entity.properties[slot] as? NSAttributeDescription, attribute.isTransient { return }
            throw CoreDataError.make(
                NSCoreDataError,
                slot != nil
                    ? "An NSBatchInsertRequest sets attributes only; '\(key)' of entity \(entity.name ?? "?") is a relationship."
                    : "The entity \(entity.name ?? "?") has no attribute named '\(key)' to insert.",
                userInfo: ["entity": entity.name ?? "", "key": key])
        }
        try store(value, attribute, in: &slots)
    }

    @inline(__always)
    private func store(_ value: Any, _ attribute: NSAttributeDescription, in slots: inout SlotRow) throws {
        let slot = attribute.slot
        // The value of the attribute's own type first, cast from `Any` as it comes: wrapping it
        // in the `Any?` that `SlotValue(attributeValue:for:)` takes cost as much as the cast.
        switch kinds[slot] {
        case .string:
            if let string = value as? String {
                slots[slot] = .string(string)
                return
            }
        case .date:
            if let date = value as? Date {
                slots[slot] = .date(date)
                return
            }
        case .boolean:
            if let flag = value as? Bool {
                slots[slot] = .int(flag ? 1 : 0)
                return
            }
        case .other:
            break
        }
        let converted = SlotValue(attributeValue: value, for: attribute)
        if case .invalid = converted { throw wrongType(value, attribute) }
        slots[slot] = converted
    }

    /// The attribute types converted without `SlotValue(attributeValue:for:)`'s general path.
    private enum Kind {
        case string, date, boolean, other
    }

    private func wrongType(_ value: Any, _ attribute: NSAttributeDescription) -> NSError {
        CoreDataError.validation(
            NSManagedObjectValidationError,
            "Unacceptable type of value for attribute: entity \(entity.name ?? "?"), property \(attribute.name), desired type \(attribute.attributeType.xcodeName), given value \(value) of type \(type(of: value)).",
            object: nil, key: attribute.name, value: value)
    }
}
