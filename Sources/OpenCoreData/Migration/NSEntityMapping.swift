import Foundation

/// How an entity mapping turns source instances into destination instances.
public enum NSEntityMappingType: UInt, Sendable {
    /// Not set.
    case undefinedEntityMappingType = 0
    /// Done by the mapping's `NSEntityMigrationPolicy`.
    case customEntityMappingType = 1
    /// The destination entity is new: no source instances.
    case addEntityMappingType = 2
    /// The source entity is gone: its instances are not carried over.
    case removeEntityMappingType = 3
    /// The entity is unchanged: instances are copied as they are.
    case copyEntityMappingType = 4
    /// The entity changed: instances are carried over through the property mappings.
    case transformEntityMappingType = 5
}

/// How the instances of one source entity become instances of one destination entity in a
/// migration: a part of an `NSMappingModel`.
open class NSEntityMapping: NSObject {
    /// The mapping's name, unique in its mapping model.
    open var name: String!
    /// What the mapping does.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    /// The source entity's name; nil for an added entity.
    open var sourceEntityName: String?
    /// The source entity's version hash.
    open var sourceEntityVersionHash: Data?
    /// The destination entity's name; nil for a removed entity.
    open var destinationEntityName: String?
    /// The destination entity's version hash.
    open var destinationEntityVersionHash: Data?
    /// How each destination attribute gets its value.
    open var attributeMappings: [NSPropertyMapping]?
    /// How each destination relationship gets its destinations.
    open var relationshipMappings: [NSPropertyMapping]?
    /// Which source instances the mapping takes (a fetch of the source entity, by default).
    open var sourceExpression: NSExpression?
    /// The mapping's user info.
    open var userInfo: [AnyHashable: Any]?
    /// The name of the `NSEntityMigrationPolicy` subclass that runs the mapping, if any.
    open var entityMigrationPolicyClassName: String?

    override public init() { super.init() }

    /// The attribute mappings by destination property name.
    var attributeMappingsByName: [String: NSPropertyMapping] {
        Dictionary((attributeMappings ?? []).compactMap { mapping in mapping.name.map { ($0, mapping) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The relationship mappings by destination property name.
    var relationshipMappingsByName: [String: NSPropertyMapping] {
        Dictionary((relationshipMappings ?? []).compactMap { mapping in mapping.name.map { ($0, mapping) } }, uniquingKeysWith: { first, _ in first })
    }

    override open var description: String {
        "<NSEntityMapping \(name ?? "nil"): \(sourceEntityName ?? "nil") → \(destinationEntityName ?? "nil"), type \(mappingType.rawValue)>"
    }
}

/// How one destination property gets its value in a migration.
open class NSPropertyMapping: NSObject {
    /// The destination property's name.
    open var name: String?
    /// The value, evaluated with `$source` (the source instance) and `$manager` (the migration
    /// manager); nil leaves the property at its default value.
    open var valueExpression: NSExpression?
    /// The mapping's user info.
    open var userInfo: [AnyHashable: Any]?

    override public init() { super.init() }

    override open var description: String {
        "<NSPropertyMapping \(name ?? "nil") = \(valueExpression.map { "\($0)" } ?? "nil")>"
    }
}
