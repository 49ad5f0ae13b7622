extension StoreRow {
    /// The row of a custom store's object, from its values by property: attribute values, and
    /// to-one destinations as `NSManagedObjectID`s (anything else is no destination); to-many
    /// relationships are left to be read when first used.
    ///
    /// - Parameters:
    ///   - objectID: The object's ID.
    ///   - version: Its version, for optimistic locking.
    ///   - value: The value the store keeps for a property, nil for none.
    init?(customStoreObject objectID: NSManagedObjectID, version: UInt64, value: (NSPropertyDescription) -> Any?) {
        guard let layout = objectID.entity.layout else { return nil }
        var slots = layout.objectTemplate.defaultSlots
        for property in layout.properties {
            switch property {
            case let attribute as NSAttributeDescription where !attribute.isTransient:
                slots[attribute.slot] = SlotValue(attributeValue: value(attribute), for: attribute)
            case let relationship as NSRelationshipDescription where relationship.isToMany:
                slots[relationship.slot] = .unloaded
            case let relationship as NSRelationshipDescription:
                if let destination = value(relationship) as? NSManagedObjectID, let number = destination.entity.layout?.entityNumber {
                    slots[relationship.slot] = .reference(ObjectReference(entityNumber: Int32(number), primaryKey: destination.primaryKey))
                } else {
                    slots[relationship.slot] = .null
                }
            default: break
            }
        }
        self.init(entityNumber: Int32(layout.entityNumber), primaryKey: objectID.primaryKey, version: Int64(clamping: version), values: slots)
    }
}
