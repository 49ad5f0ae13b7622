import Foundation

/// Apple's record of which properties an update changed (`ACHANGE.ZCOLUMNS`): one bit per entry
/// of the entity's bit order, most significant bit of byte 0 first.
///
/// The order is the one the decompiled framework gives (docs/compatibility.md, "Persistent
/// history"; not yet checked against a store Apple wrote with an update): to-one foreign keys,
/// then the entity columns of to-ones to a hierarchy, then the order columns of to-ones whose
/// inverse is ordered, then attributes, then one-to-many and many-to-many relationships. Each
/// group lists the superentity's properties before the entity's own, each entity's by name. A
/// to-one can so have two or three bits. This is the one place that decides the order.
package enum HistoryColumnBitmap {
    /// The entity's properties in bit order, a to-one once for each column it has.
    package static func bitOrder(of entity: NSEntityDescription) -> [NSPropertyDescription] {
        let levels = entity.inheritanceChain.map { level in
            level.declaredProperties.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        }
        func group(_ include: (NSPropertyDescription) -> Bool) -> [NSPropertyDescription] {
            levels.flatMap { $0.filter(include) }
        }
        func toOne(_ property: NSPropertyDescription) -> NSRelationshipDescription? {
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany else { return nil }
            return relationship
        }
        func toMany(_ property: NSPropertyDescription) -> NSRelationshipDescription? {
            guard let relationship = property as? NSRelationshipDescription, relationship.isToMany else { return nil }
            return relationship
        }
        return group { toOne($0) != nil }
            + group { toOne($0)?.entityColumnName != nil }
            + group { toOne($0)?.orderColumnName != nil }
            + group { $0 is NSAttributeDescription }
            + group { toMany($0).map { $0.inverseRelationship?.isToMany != true } ?? false }
            + group { toMany($0)?.inverseRelationship?.isToMany == true }
    }

    /// The bitmap of an update that changed the properties named `changed`, for an entity whose
    /// bit order is `order` (`bitOrder(of:)`, worked out once per entity by the caller).
    package static func encode(_ changed: Set<String>, order: [NSPropertyDescription]) -> Data {
        var bytes = [UInt8](repeating: 0, count: (order.count + 7) / 8)
        for (bit, property) in order.enumerated() where changed.contains(property.name) {
            bytes[bit >> 3] |= 0x80 >> UInt8(bit & 7)
        }
        return Data(bytes)
    }

    /// The properties a bitmap marks, or nil when it is shorter than the entity's bit order
    /// (written for another version of the entity), as Apple's reader answers.
    static func decode(_ data: Data, of entity: NSEntityDescription) -> Set<NSPropertyDescription>? {
        let order = bitOrder(of: entity)
        guard order.count <= data.count * 8 else { return nil }
        let bytes = [UInt8](data)
        var properties = Set<NSPropertyDescription>()
        for (bit, property) in order.enumerated() where bytes[bit >> 3] & (0x80 >> UInt8(bit & 7)) != 0 {
            properties.insert(property)
        }
        return properties
    }
}
