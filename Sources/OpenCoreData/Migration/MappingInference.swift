import Foundation

/// Core Data's rules for inferring a mapping model (docs/compatibility.md, "Migration"): what
/// corresponds, by name or renaming identifier, and what a lightweight migration cannot do.
struct MappingInference {
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel

    /// The name an entity or property answers to across versions: its renaming identifier, or its
    /// name. A destination names its source this way; a source is known by it too, so that a
    /// chain of renames (version 1 → 2 → 3) finds its start.
    static func canonicalName(_ name: String?, renamingIdentifier: String?) -> String {
        renamingIdentifier ?? name ?? ""
    }

    /// The source entity a destination entity comes from, if any.
    func sourceEntity(of entity: NSEntityDescription) -> NSEntityDescription? {
        let wanted = Self.canonicalName(entity.name, renamingIdentifier: entity.renamingIdentifier)
        return source.entities.first { $0.name == wanted }
            ?? source.entities.first { Self.canonicalName($0.name, renamingIdentifier: $0.renamingIdentifier) == wanted }
    }

    /// The source property a destination property comes from, if any.
    func sourceProperty(of property: NSPropertyDescription, in entity: NSEntityDescription) -> NSPropertyDescription? {
        let wanted = Self.canonicalName(property.name, renamingIdentifier: property.renamingIdentifier)
        let stored = entity.properties.filter { !$0.isTransient }
        return stored.first { $0.name == wanted }
            ?? stored.first { Self.canonicalName($0.name, renamingIdentifier: $0.renamingIdentifier) == wanted }
    }

    func mappingModel() throws -> NSMappingModel {
        let model = NSMappingModel()
        model.isInferred = true
        var mappedSources = Set<ObjectIdentifier>()
        var rootsBySourceRoot: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in ModelLayoutBuilder.storeOrder(of: destination.entities) {
            let mapping = NSEntityMapping()
            mapping.destinationEntityName = entity.name
            mapping.destinationEntityVersionHash = entity.versionHash
            guard let from = sourceEntity(of: entity) else {
                mapping.name = entity.name
                mapping.mappingType = .addEntityMappingType
                model.entityMappings.append(mapping)
                continue
            }
            mappedSources.insert(ObjectIdentifier(from))
            try checkHierarchy(entity, from: from, rootsBySourceRoot: &rootsBySourceRoot)
            mapping.name = "\(from.name ?? "")To\(entity.name ?? "")"
            mapping.sourceEntityName = from.name
            mapping.sourceEntityVersionHash = from.versionHash
            mapping.mappingType = from.versionHash == entity.versionHash && from.name == entity.name ? .copyEntityMappingType : .transformEntityMappingType
            mapping.attributeMappings = try attributeMappings(entity, from: from)
            mapping.relationshipMappings = try relationshipMappings(entity, from: from)
            model.entityMappings.append(mapping)
        }
        for entity in ModelLayoutBuilder.storeOrder(of: source.entities) where !mappedSources.contains(ObjectIdentifier(entity)) {
            let mapping = NSEntityMapping()
            mapping.name = entity.name
            mapping.mappingType = .removeEntityMappingType
            mapping.sourceEntityName = entity.name
            mapping.sourceEntityVersionHash = entity.versionHash
            model.entityMappings.append(mapping)
        }
        return model
    }

    /// Entities may move within a hierarchy, leave it or get a new parent, but two hierarchies of
    /// the source cannot become one: each destination root takes rows from one source root.
    private func checkHierarchy(
        _ entity: NSEntityDescription, from: NSEntityDescription, rootsBySourceRoot: inout [ObjectIdentifier: NSEntityDescription]
    ) throws {
        let destinationRoot = entity.rootEntity
        let sourceRoot = ObjectIdentifier(from.rootEntity)
        for (otherSource, otherDestination) in rootsBySourceRoot where otherDestination === destinationRoot && otherSource != sourceRoot {
            throw Self.error(
                entity: entity, property: nil,
                reason: "Cannot merge multiple root entity source tables into one destination entity root table")
        }
        rootsBySourceRoot[sourceRoot] = rootsBySourceRoot[sourceRoot] ?? destinationRoot
    }

    private func attributeMappings(_ entity: NSEntityDescription, from: NSEntityDescription) throws -> [NSPropertyMapping] {
        var mappings: [NSPropertyMapping] = []
        for attribute in entity.properties.compactMap({ $0 as? NSAttributeDescription }) where !attribute.isTransient {
            let mapping = NSPropertyMapping()
            mapping.name = attribute.name
            if let old = sourceProperty(of: attribute, in: from) {
                guard let oldAttribute = old as? NSAttributeDescription, Self.compatible(oldAttribute, attribute) else {
                    throw Self.error(entity: entity, property: attribute, reason: "Source and destination attribute types are incompatible")
                }
                mapping.valueExpression = Self.sourceValue(old.name)
            }
            mappings.append(mapping)
        }
        return mappings
    }

    private func relationshipMappings(_ entity: NSEntityDescription, from: NSEntityDescription) throws -> [NSPropertyMapping] {
        var mappings: [NSPropertyMapping] = []
        for relationship in entity.properties.compactMap({ $0 as? NSRelationshipDescription }) where !relationship.isTransient {
            let mapping = NSPropertyMapping()
            mapping.name = relationship.name
            if let old = sourceProperty(of: relationship, in: from) {
                guard let oldRelationship = old as? NSRelationshipDescription else {
                    throw Self.error(entity: entity, property: relationship, reason: "Source and destination property kinds are incompatible")
                }
                // The destination entity must be the one the old destination maps to.
                if let target = relationship.destinationEntity, let oldTarget = oldRelationship.destinationEntity,
                    let targetSource = sourceEntity(of: target), !oldTarget.isKindOf(entity: targetSource), !targetSource.isKindOf(entity: oldTarget)
                {
                    throw Self.error(entity: entity, property: relationship, reason: "Source and destination relationship destinations are incompatible")
                }
                mapping.valueExpression = NSExpression(
                    forFunction: NSExpression(forVariable: "manager"), selectorName: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                    arguments: [NSExpression(forConstantValue: old.name), Self.sourceValue(old.name)])
            }
            mappings.append(mapping)
        }
        return mappings
    }

    /// `$source.<name>`: the source instance's value, built rather than parsed so that any
    /// property name (a reserved word of the format syntax too) works.
    static func sourceValue(_ name: String) -> NSExpression {
        NSExpression(storage: .operandKeyPath(NSExpression(forVariable: "source"), name))
    }

    /// Whether values of `old` can be kept for `new`: the same type (and, for transformable
    /// values, the same value class). Core Data infers no type conversion.
    static func compatible(_ old: NSAttributeDescription, _ new: NSAttributeDescription) -> Bool {
        old.attributeType == new.attributeType
    }

    static func error(entity: NSEntityDescription, property: NSPropertyDescription?, reason: String) -> NSError {
        var info: [String: Any] = ["entity": entity.name ?? "", "reason": reason]
        if let property { info["property"] = property.name }
        let about = property.map { "\(entity.name ?? "").\($0.name)" } ?? (entity.name ?? "")
        return CoreDataError.make(NSInferredMappingModelError, "Can't infer mapping for \(about): \(reason)", userInfo: info)
    }
}

extension NSEntityDescription {
    /// The top of the entity's hierarchy.
    var rootEntity: NSEntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }
}
