/// Attributes, relationships, fetch indexes and uniqueness constraints of an `<entity>`.
extension XcodeModelBuilder {
    /// - Parameter composing: the composites being built around this attribute, outermost first,
    ///   so that a composite containing itself is refused instead of recursing forever.
    func makeAttribute(_ element: ModelXMLElement, entityName: String, composing: [String] = []) throws -> NSAttributeDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw corrupt(element, "an attribute of entity '\(entityName)' has no name")
        }
        let label = "attribute '\(name)' of entity '\(entityName)'"
        guard let typeName = element["attributeType"] else { throw corrupt(element, "\(label) has no attributeType") }
        guard let type = NSAttributeType(xcodeName: typeName) else {
            throw corrupt(element, "\(label) has an unknown attributeType '\(typeName)'")
        }
        let attribute: NSAttributeDescription
        if type == .compositeAttributeType {
            let composite = NSCompositeAttributeDescription()
            composite.elements = try compositeElements(of: element, label: label, entityName: entityName, composing: composing)
            attribute = composite
        } else if element.flag("derived") {
            let derived = NSDerivedAttributeDescription()
            guard let text = element["derivationExpression"], !text.isEmpty else {
                throw corrupt(element, "\(label) is derived but has no derivationExpression")
            }
            do {
                derived.derivationExpression = NSExpression(storage: try PredicateParser.parseExpression(text, arguments: []).storage)
            } catch {
                let reason = (error as? PredicateParseError)?.nsError(format: text).localizedDescription ?? "\(error)"
                throw corrupt(element, "the derivationExpression of \(label) does not parse: \(reason)")
            }
            attribute = derived
        } else {
            attribute = NSAttributeDescription()
        }
        attribute.name = name
        applyCommonSettings(element, to: attribute)
        attribute.attributeType = type
        attribute.valueTransformerName = element["valueTransformerName"]
        attribute.attributeValueClassName = element["customClassName"]
        attribute.allowsExternalBinaryDataStorage = element.flag("allowsExternalBinaryDataStorage")
        attribute.preservesValueInHistoryOnDeletion = element.flag("preserveAfterDeletion")
        attribute.allowsCloudEncryption = element.flag("allowsCloudEncryption")
        attribute.defaultValue = try defaultValue(of: element, type: type, label: label)
        attribute.rules = try rules(of: element, type: type, label: label)
        return attribute
    }

    /// A `<fetchedProperty>`: its request's entity is resolved once every entity exists
    /// (`resolveFetchedProperties`).
    func makeFetchedProperty(_ element: ModelXMLElement, entityName: String) throws -> NSFetchedPropertyDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw corrupt(element, "a fetched property of entity '\(entityName)' has no name")
        }
        let property = NSFetchedPropertyDescription()
        property.name = name
        property.isOptional = element.flag("optional")
        property.versionHashModifier = element["versionHashModifier"]
        property.renamingIdentifier = element["elementID"]
        property.userInfo = element.userInfo
        return property
    }

    /// Gives each fetched property of `entry` its request: the entity it fetches and its predicate,
    /// which may name `$FETCH_SOURCE` and `$FETCHED_PROPERTY`.
    func resolveFetchedProperties(of entry: PendingEntity, byName: [String: NSEntityDescription]) throws {
        for element in entry.element.children(named: "fetchedProperty") {
            guard let name = element["name"], let property = entry.entity.propertiesByName[name] as? NSFetchedPropertyDescription else { continue }
            let label = "fetched property '\(name)' of entity '\(entry.entity.name!)'"
            guard let requestElement = element.children(named: "fetchRequest").first else { throw corrupt(element, "\(label) has no fetchRequest") }
            guard let entityName = requestElement["entity"], let fetched = byName[entityName] else {
                throw corrupt(requestElement, "\(label) fetches an unknown entity '\(requestElement["entity"] ?? "")'")
            }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
            request.entity = fetched
            if let predicate = requestElement["predicateString"], !predicate.isEmpty {
                do {
                    request.predicate = try NSPredicate(validatingFormat: predicate)
                } catch {
                    throw corrupt(requestElement, "the predicate of \(label) does not parse: \((error as NSError).localizedDescription)")
                }
            }
            request.fetchLimit = try integer(requestElement, "fetchLimit") ?? 0
            property.fetchRequest = request
        }
    }

    /// The elements of the `<composite>` a composite attribute names, built afresh for it.
    private func compositeElements(
        of element: ModelXMLElement, label: String, entityName: String, composing: [String]
    ) throws -> [NSAttributeDescription] {
        guard let compositeName = element["composite"], let definition = composites[compositeName] else {
            throw corrupt(element, "\(label) names an unknown composite '\(element["composite"] ?? "")'")
        }
        guard !composing.contains(compositeName) else {
            throw corrupt(element, "composite '\(compositeName)' contains itself")
        }
        guard composing.count < ModelLimits.maximumHierarchyDepth else { throw corrupt(element, "composites nest too deeply") }
        var seen = Set<String>()
        var elements: [NSAttributeDescription] = []
        for child in definition.children(named: "attribute") {
            let member = try makeAttribute(child, entityName: entityName, composing: composing + [compositeName])
            guard seen.insert(member.name).inserted else {
                throw corrupt(child, "composite '\(compositeName)' has two elements named '\(member.name)'")
            }
            elements.append(member)
        }
        return elements
    }

    func makeRelationship(_ element: ModelXMLElement, entityName: String) throws -> NSRelationshipDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw corrupt(element, "a relationship of entity '\(entityName)' has no name")
        }
        let relationship = NSRelationshipDescription()
        relationship.name = name
        applyCommonSettings(element, to: relationship)
        let label = "relationship '\(name)' of entity '\(entityName)'"
        // Xcode writes maxCount="1" on a to-one and nothing on an unbounded to-many, whose count
        // is 0 (also what the version hash expects).
        relationship.maxCount = try integer(element, "maxCount") ?? (element.flag("toMany") ? 0 : 1)
        relationship.minCount = try integer(element, "minCount") ?? 0
        relationship.isOrdered = element.flag("ordered")
        switch element["deletionRule"] ?? "Nullify" {
        case "Nullify": relationship.deleteRule = .nullifyDeleteRule
        case "Cascade": relationship.deleteRule = .cascadeDeleteRule
        case "Deny": relationship.deleteRule = .denyDeleteRule
        case "No Action": relationship.deleteRule = .noActionDeleteRule
        case let other: throw corrupt(element, "\(label) has an unknown deletionRule '\(other)'")
        }
        guard let destination = element["destinationEntity"], !destination.isEmpty else {
            throw corrupt(element, "\(label) has no destinationEntity")
        }
        relationship.destinationEntityName = destination
        relationship.inverseRelationshipName = element["inverseName"]
        return relationship
    }

    /// Settings every property has. Xcode leaves `optional` out for a required property, so its
    /// absence means false, unlike `NSPropertyDescription`'s default.
    private func applyCommonSettings(_ element: ModelXMLElement, to property: NSPropertyDescription) {
        property.isOptional = element.flag("optional")
        property.isTransient = element.flag("transient")
        // Not Xcode's: how a model cache (and a model written from one) keeps `isReadOnly`.
        property.isReadOnly = element.flag("readOnly")
        property.versionHashModifier = element["versionHashModifier"]
        property.renamingIdentifier = element["elementID"]
        property.isIndexed = element.flag("indexed")
        property.isIndexedBySpotlight = element.flag("spotlightIndexingEnabled")
        property.userInfo = element.userInfo
    }

    func resolve(_ item: PendingRelationship, of entity: NSEntityDescription, byName: [String: NSEntityDescription]) throws {
        let relationship = item.relationship
        let label = "relationship '\(relationship.name)' of entity '\(entity.name!)'"
        guard let destinationName = relationship.destinationEntityName, let destination = byName[destinationName] else {
            throw corrupt(
                item.element, "\(label) has an unknown destinationEntity '\(relationship.destinationEntityName ?? "")'")
        }
        relationship.destinationEntity = destination
        guard let inverseName = relationship.inverseRelationshipName else { return }
        guard let inverse = destination.propertiesByName[inverseName] as? NSRelationshipDescription else {
            throw corrupt(
                item.element, "\(label) has an inverse '\(inverseName)' that is not a relationship of entity '\(destinationName)'")
        }
        relationship.inverseRelationship = inverse
    }

    /// Builds the entity's fetch indexes once inherited properties are known. An index with an
    /// expression element is skipped whole: expressions are not supported yet, and a partial copy
    /// would be a different index.
    func resolveIndexes(of entry: PendingEntity) throws {
        var indexes: [NSFetchIndexDescription] = []
        let entityName = entry.entity.name!
        for element in entry.element.children(named: "fetchIndex") {
            guard let name = element["name"], !name.isEmpty else {
                throw corrupt(element, "a fetch index of entity '\(entityName)' has no name")
            }
            let items = element.children(named: "fetchIndexElement")
            guard !items.isEmpty, items.allSatisfy({ $0["property"] != nil }) else { continue }
            var elements: [NSFetchIndexElementDescription] = []
            for item in items {
                let propertyName = item["property"]!
                guard let property = entry.entity.propertiesByName[propertyName] else {
                    throw corrupt(item, "fetch index '\(name)' of entity '\(entityName)' names an unknown property '\(propertyName)'")
                }
                let type: NSFetchIndexElementType
                switch item["type"] ?? "Binary" {
                case "Binary": type = .binary
                case "RTree": type = .rTree
                case let other: throw corrupt(item, "fetch index '\(name)' has an unknown element type '\(other)'")
                }
                let description = NSFetchIndexElementDescription(property: property, collationType: type)
                switch item["order"] ?? "ascending" {
                case "ascending": description.isAscending = true
                case "descending": description.isAscending = false
                case let other: throw corrupt(item, "fetch index '\(name)' has an unknown order '\(other)'")
                }
                elements.append(description)
            }
            indexes.append(NSFetchIndexDescription(name: name, elements: elements))
        }
        entry.entity.indexes = indexes
    }

    /// `<uniquenessConstraints>` as arrays of property names, in model order (the version hash
    /// depends on that order).
    func uniquenessConstraints(in element: ModelXMLElement) -> [[Any]] {
        element.children(named: "uniquenessConstraints")
            .flatMap { $0.children(named: "uniquenessConstraint") }
            .map { constraint in constraint.children(named: "constraint").compactMap { $0["value"] } }
            .filter { !$0.isEmpty }
    }

    func checkConstraints(of entry: PendingEntity) throws {
        let known = entry.entity.propertiesByName
        for constraint in entry.entity.uniquenessConstraints {
            for name in VersionHasher.constraintNames(constraint) where known[name] == nil {
                throw corrupt(
                    entry.element, "a uniqueness constraint of entity '\(entry.entity.name!)' names an unknown property '\(name)'")
            }
        }
    }
}
