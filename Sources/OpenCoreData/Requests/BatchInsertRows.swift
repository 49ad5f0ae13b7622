/// The rows of an `NSBatchInsertRequest`, read one at a time as the store writes them, so that a
/// handler's million objects never sit in memory together.
///
/// Each row is converted as `setValue(_:forKey:)` converts values, into the slots of the entity's
/// stored attributes, starting from their default values.
final class BatchInsertRows {
    enum Source {
        case dictionaries([[String: Any]])
        case dictionaryHandler((NSMutableDictionary) -> Bool)
        case objects((NSManagedObject) -> Bool)
    }

    let entity: NSEntityDescription
    /// The stored attributes, whose slots a row fills and whose columns the store writes.
    let attributes: [NSAttributeDescription]
    /// A new object's slots: the attributes' default values.
    let defaults: ContiguousArray<SlotValue>
    private let source: Source
    private var index = 0
    private var finished = false

    init(entity: NSEntityDescription, source: Source) {
        self.entity = entity
        self.source = source
        attributes = entity.properties.compactMap { property in
            guard let attribute = property as? NSAttributeDescription, !attribute.isTransient, attribute.columnName != nil
            else { return nil }
            return attribute
        }
        defaults = entity.layout!.objectTemplate.defaultSlots
    }

    /// Fills `slots` (a copy of `defaults` the caller owns) with the next row's values.
    ///
    /// - Returns: false when there are no more rows.
    /// - Throws: `NSManagedObjectValidationError` for a value of the wrong type; `NSCoreDataError`
    ///   for a key that is not an attribute of the entity.
    func next(into slots: inout ContiguousArray<SlotValue>) throws -> Bool {
        guard !finished else { return false }
        for attribute in attributes { slots[attribute.slot] = defaults[attribute.slot] }
        switch source {
        case .dictionaries(let rows):
            guard index < rows.count else { return false }
            for (key, value) in rows[index] { try set(value, forKey: key, in: &slots) }
        case .dictionaryHandler(let handler):
            let dictionary = NSMutableDictionary()
            if handler(dictionary) {
                finished = true
                return false
            }
            for (key, value) in dictionary {
                try set(value, forKey: key as? String ?? "\(key)", in: &slots)
            }
        case .objects(let handler):
            let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
            if handler(object) {
                finished = true
                return false
            }
            object.fireFault()
            for attribute in attributes {
                let slot = object.slots[attribute.slot]
                if case .invalid(let box) = slot { throw wrongType(box.value, attribute) }
                slots[attribute.slot] = slot
            }
        }
        index += 1
        return true
    }

    /// The values of the row `next` filled last, by attribute name, for errors.
    func snapshot(_ slots: ContiguousArray<SlotValue>) -> [String: Any] {
        var values: [String: Any] = [:]
        for attribute in attributes { values[attribute.name] = slots[attribute.slot].publicValue(for: attribute) ?? NSNull() }
        return values
    }

    private func set(_ value: Any, forKey key: String, in slots: inout ContiguousArray<SlotValue>) throws {
        let slot = entity.layout!.objectTemplate.scannedSlot(of: key) ?? entity.propertiesByName[key]?.slot
        guard let slot, let attribute = entity.properties[slot] as? NSAttributeDescription else {
            let isRelationship = slot != nil
            throw CoreDataError.make(
                NSCoreDataError,
                isRelationship
                    ? "An NSBatchInsertRequest sets attributes only; '\(key)' of entity \(entity.name ?? "?") is a relationship."
                    : "The entity \(entity.name ?? "?") has no attribute named '\(key)' to insert.",
                userInfo: ["entity": entity.name ?? "", "key": key])
        }
        guard !attribute.isTransient else { return }
        let converted = SlotValue(attributeValue: value, for: attribute)
        if case .invalid = converted { throw wrongType(value, attribute) }
        slots[slot] = converted
    }

    private func wrongType(_ value: Any, _ attribute: NSAttributeDescription) -> NSError {
        CoreDataError.validation(
            NSManagedObjectValidationError,
            "Unacceptable type of value for attribute: entity \(entity.name ?? "?"), property \(attribute.name), desired type \(attribute.attributeType.xcodeName), given value \(value) of type \(type(of: value)).",
            object: nil, key: attribute.name, value: value)
    }
}
