import Foundation
import OpenCoreData

/// An `Optional`, seen through `Any.Type`.
protocol OptionalType {
    static var wrappedType: Any.Type { get }
    static var noneValue: Any { get }
    var isNone: Bool { get }
    /// The wrapped value, unwrapped through nested optionals; nil for none.
    var flattened: Any? { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
    static var noneValue: Any { Optional<Wrapped>.none as Any }

    var flattened: Any? {
        guard case .some(let wrapped) = self else { return nil }
        return (wrapped as? any OptionalType).map { $0.flattened } ?? wrapped
    }

    var isNone: Bool {
        guard case .none = self else { return false }
        return true
    }
}

/// `value` without its optional wrappers (nested ones too); nil for none.
func flattened(_ value: Any) -> Any? {
    if let optional = value as? any OptionalType { optional.flattened } else { value }
}

/// An array of models, seen through `Any.Type`: a to-many relationship.
protocol ModelArrayType {
    static var modelType: any PersistentModel.Type { get }
}

extension Array: ModelArrayType where Element: PersistentModel {
    static var modelType: any PersistentModel.Type { Element.self }
}

/// Derives the entities of `@Model` classes, and the Core Data model they make, as SwiftData
/// does (docs/compatibility.md, SwiftData): entity = class name; every listed property persisted;
/// a model or optional model property a to-one relationship (optional when the property is),
/// an array of models a to-many (optional only as an optional array), nullify by default; inverses as `@Relationship`
/// names them, else inferred when exactly one relationship on each side points at the other;
/// `.unique` a uniqueness constraint; the initial value the default.
struct SchemaDerivation {
    private(set) var entities: [Schema.Entity] = []
    /// The model class of each entity.
    private(set) var types: [String: any PersistentModel.Type] = [:]
    /// Each entity's properties in declaration order, with what they are.
    private var properties: [String: [Property]] = [:]

    private enum Property {
        case attribute(Schema.Attribute, NSAttributeType)
        case relationship(Schema.Relationship, keypath: AnyKeyPath)
    }

    init(_ roots: [any PersistentModel.Type]) {
        // The classes given and every class they relate to, each once.
        var types: [String: any PersistentModel.Type] = [:]
        var pending = roots
        while let next = pending.popLast() {
            let name = Self.entityName(of: next)
            guard types[name] == nil else { continue }
            types[name] = next
            for metadata in next.schemaMetadata {
                if let related = Self.relatedModel(of: metadata.keypath) { pending.append(related.type) }
            }
        }
        for name in types.keys.sorted() {
            let entity = Schema.Entity(name: name)
            var list: [Property] = []
            for metadata in types[name]!.schemaMetadata {
                let (valueType, isOptional) = Self.unwrapped(type(of: metadata.keypath).valueType)
                if let related = Self.relatedModel(of: metadata.keypath) {
                    let relationship = metadata.metadata as? Schema.Relationship ?? Schema.Relationship()
                    relationship.name = metadata.name
                    relationship.destination = Self.entityName(of: related.type)
                    relationship.isToOneRelationship = !related.isToMany
                    relationship.isOptional = isOptional
                    entity.relationships.append(relationship)
                    list.append(.relationship(relationship, keypath: metadata.keypath))
                } else {
                    let attribute = metadata.metadata as? Schema.Attribute ?? Schema.Attribute()
                    attribute.name = metadata.name
                    attribute.valueType = valueType
                    attribute.isOptional = isOptional
                    attribute.defaultValue = metadata.defaultValue
                    entity.attributes.append(attribute)
                    if attribute.isUnique { entity.uniquenessConstraints.append([metadata.name]) }
                    list.append(.attribute(attribute, ValueCoding.attributeType(of: valueType)))
                }
            }
            let names = { (keyPaths: [AnyKeyPath]) -> [String] in
                keyPaths.compactMap { keyPath in types[name]!.schemaMetadata.first { $0.keypath == keyPath }?.name }
            }
            for constraint in types[name]!._$uniquenessConstraints {
                let constrained = names(constraint)
                if !constrained.isEmpty, !entity.uniquenessConstraints.contains(constrained) { entity.uniquenessConstraints.append(constrained) }
            }
            entity.indices = types[name]!._$indices.map(names).filter { !$0.isEmpty }
            entities.append(entity)
            properties[name] = list
        }
        resolveInverses(types: types)
        self.types = types
    }

    /// Names each relationship's inverse: the one `@Relationship(inverse:)` gives (on either
    /// side), else the only relationship of the destination that points back, when that one has
    /// no other candidate either.
    private mutating func resolveInverses(types: [String: any PersistentModel.Type]) {
        let byName = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
        func name(of keypath: AnyKeyPath, in entity: String) -> String? {
            types[entity]?.schemaMetadata.first { $0.keypath == keypath }?.name
        }
        for entity in entities {
            for relationship in entity.relationships {
                guard let keypath = relationship.inverseKeyPath, let destination = byName[relationship.destination],
                    let inverseName = name(of: keypath, in: destination.name),
                    let inverse = destination.relationships.first(where: { $0.name == inverseName })
                else { continue }
                relationship.inverseName = inverse.name
                inverse.inverseName = relationship.name
            }
        }
        for entity in entities {
            for relationship in entity.relationships where relationship.inverseName == nil {
                guard let destination = byName[relationship.destination] else { continue }
                let candidates = destination.relationships.filter {
                    $0.destination == entity.name && $0.inverseName == nil && $0 !== relationship
                }
                let rivals = entity.relationships.filter { $0.destination == destination.name && $0.inverseName == nil }
                guard candidates.count == 1, rivals.count == 1 else { continue }
                relationship.inverseName = candidates[0].name
                candidates[0].inverseName = relationship.name
            }
        }
    }

    /// The Core Data model of the entities.
    func managedObjectModel(version: Schema.Version) -> NSManagedObjectModel {
        var descriptions: [String: NSEntityDescription] = [:]
        for entity in entities {
            let description = NSEntityDescription()
            description.name = entity.name
            description.managedObjectClassName = entity.name
            descriptions[entity.name] = description
        }
        var relationships: [(NSRelationshipDescription, Schema.Relationship)] = []
        for entity in entities {
            var list: [NSPropertyDescription] = []
            for property in properties[entity.name] ?? [] {
                switch property {
                case .attribute(let attribute, let type):
                    list.append(Self.attributeDescription(attribute, type: type))
                case .relationship(let relationship, _):
                    let description = Self.relationshipDescription(relationship, destination: descriptions[relationship.destination])
                    relationships.append((description, relationship))
                    list.append(description)
                }
            }
            descriptions[entity.name]!.properties = list
            descriptions[entity.name]!.uniquenessConstraints = entity.uniquenessConstraints
            descriptions[entity.name]!.indexes = entity.indices.map { names in
                let description = descriptions[entity.name]!
                let elements = names.compactMap { name in
                    description.propertiesByName[name].map { NSFetchIndexElementDescription(property: $0, collationType: .binary) }
                }
                return NSFetchIndexDescription(name: "\(entity.name)_\(names.joined(separator: "_"))_INDEX", elements: elements)
            }
        }
        for (description, relationship) in relationships {
            guard let inverseName = relationship.inverseName else { continue }
            description.inverseRelationship = descriptions[relationship.destination]?.relationshipsByName[inverseName]
        }
        let model = NSManagedObjectModel()
        model.entities = entities.compactMap { descriptions[$0.name] }
        model.versionIdentifiers = [version.description]
        return model
    }

    private static func attributeDescription(_ attribute: Schema.Attribute, type: NSAttributeType) -> NSAttributeDescription {
        let description: NSAttributeDescription
        if case .composite(let shape) = ValueCoding.strategy(for: attribute.valueType) {
            description = shape.attribute(named: attribute.name)
        } else {
            description = NSAttributeDescription()
            description.name = attribute.name
            description.attributeType = type
        }
        description.isOptional = attribute.isOptional
        description.renamingIdentifier = attribute.originalName
        description.versionHashModifier = attribute.hashModifier
        description.allowsExternalBinaryDataStorage = attribute.options.contains(.externalStorage)
        description.preservesValueInHistoryOnDeletion = attribute.options.contains(.preserveValueOnDeletion)
        description.isTransient = attribute.options.contains(.ephemeral)
        description.defaultValue = defaultValue(attribute.defaultValue, type: type)
        return description
    }

    private static func relationshipDescription(_ relationship: Schema.Relationship, destination: NSEntityDescription?) -> NSRelationshipDescription {
        let description = NSRelationshipDescription()
        description.name = relationship.name
        description.destinationEntity = destination
        description.isOptional = relationship.isOptional
        description.renamingIdentifier = relationship.originalName
        description.versionHashModifier = relationship.hashModifier
        if relationship.isToOneRelationship {
            description.maxCount = 1
        } else {
            description.minCount = relationship.minimumModelCount ?? 0
            description.maxCount = relationship.maximumModelCount ?? 0
            description.allowsEmptyWhenRequired = true
        }
        switch relationship.deleteRule {
        case .noAction: description.deleteRule = .noActionDeleteRule
        case .nullify: description.deleteRule = .nullifyDeleteRule
        case .cascade: description.deleteRule = .cascadeDeleteRule
        case .deny: description.deleteRule = .denyDeleteRule
        }
        return description
    }

    /// An initial value as a Core Data default: numbers as `NSNumber`, the rest as they are;
    /// none for types Core Data keeps no default of.
    private static func defaultValue(_ value: Any?, type: NSAttributeType) -> Any? {
        // An initial `nil` arrives as an optional inside `Any`.
        guard let value, (value as? any OptionalType)?.isNone != true, let value = ValueCoding.storedValue(value) else { return nil }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType, .floatAttributeType,
            .booleanAttributeType:
            return value as? NSNumber
        case .decimalAttributeType:
            return (value as? Decimal).map { NSDecimalNumber(decimal: $0) }
        case .stringAttributeType, .dateAttributeType, .UUIDAttributeType, .URIAttributeType:
            return value
        default:
            return nil
        }
    }

    /// The entity name of a model class: its name without the module.
    static func entityName(of type: any PersistentModel.Type) -> String { ModelClassInfo.of(type).entityName }

    /// The model class a property relates to, and whether it is an array of them.
    private static func relatedModel(of keypath: AnyKeyPath) -> (type: any PersistentModel.Type, isToMany: Bool)? {
        let (valueType, _) = unwrapped(type(of: keypath).valueType)
        if let model = valueType as? any PersistentModel.Type { return (model, false) }
        if let array = valueType as? any ModelArrayType.Type { return (array.modelType, true) }
        return nil
    }

    /// The type inside an optional, and whether there was one.
    private static func unwrapped(_ type: Any.Type) -> (Any.Type, Bool) {
        guard let optional = type as? any OptionalType.Type else { return (type, false) }
        return (optional.wrappedType, true)
    }
}
