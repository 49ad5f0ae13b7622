import Foundation

/// Archives a model as Core Data archives it into a store's `Z_MODELCACHE`: the classes and keys
/// of the caches in Apple's stores (docs/sqlite-format.md §2.3). Entities sit in an
/// `NSKnownKeysDictionary1`, each entity lists its inherited properties as copies of its own
/// (`NSEntity` naming the subentity), relationships name their destination and inverse both by
/// reference and by name, and every property carries Core Data's packed `_P` flags.
/// `CompiledModelReader` reads the archive back.
struct ModelCacheWriter {
    private var archive = KeyedArchiveWriter()
    private var entityUIDs: [String: Int] = [:]
    /// Each entity's archived property objects by name, inherited copies included (a property
    /// left out of the cache has none).
    private var propertyUIDs: [String: [String: Int]] = [:]

    private static let entityClass = ["NSEntityDescription", "NSObject"]
    private static let mutableArray = ["NSMutableArray", "NSArray", "NSObject"]
    private static let mutableDictionary = ["NSMutableDictionary", "NSDictionary", "NSObject"]

    /// The keyed archive of `model`.
    ///
    /// - Complexity: O(e·p) for e entities of at most p properties each.
    static func archive(_ model: NSManagedObjectModel) -> Data {
        var writer = ModelCacheWriter()
        return writer.write(model)
    }

    private mutating func write(_ model: NSManagedObjectModel) -> Data {
        let modelUID = archive.reserve()
        let entities = model.entities.filter { $0.name != nil }.sorted { $0.name! < $1.name! }
        // Every object that others refer to gets its UID first: entities refer to each other
        // (superentity, destinations) and relationships to their inverses.
        for entity in entities {
            entityUIDs[entity.name!] = archive.reserve()
            var properties: [String: Int] = [:]
            for property in entity.properties where Self.isArchived(property) { properties[property.name] = archive.reserve() }
            propertyUIDs[entity.name!] = properties
        }
        for entity in entities { writeEntity(entity, model: modelUID) }

        let names = entities.map { archive.string($0.name!) }
        let keys = archive.array(names)
        let mapping = archive.instance(
            ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
            [("keys", .reference(keys)), ("length", .integer(names.count)), ("version", .integer(1))])
        let values = archive.array(entities.map { entityUIDs[$0.name!]! })
        let table = archive.instance(
            ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"],
            [
                ("searchMapping", .reference(mapping)), ("values", .reference(values)),
                ("emptyToken", .reference(archive.string("__empty_slot_token_4c24_98dc_ac1e_b773__"))), ("version", .integer(1)),
            ])
        let identifiers = model.versionIdentifiers.compactMap { $0.base as? String }.sorted().map { archive.string($0) }
        var fields: [(String, KeyedArchiveWriter.Field)] = [
            ("NSEntities", .reference(table)), ("NSVersionIdentifiers", .reference(archive.set(identifiers))),
            // Fetch request templates are not archived: the cache serves migration, which never
            // reads them.
            ("NSFetchRequestTemplates", .reference(KeyedArchiveWriter.null)),
        ]
        let configurations = model.configurations
        if !configurations.isEmpty {
            let members = configurations.map { name in
                archive.set((model.entities(forConfigurationName: name) ?? []).compactMap { $0.name.flatMap { entityUIDs[$0] } })
            }
            fields.append(("NSConfigurations", .reference(archive.dictionary(keys: configurations.map { archive.string($0) }, values: members, Self.mutableDictionary))))
        }
        archive.fill(modelUID, ["NSManagedObjectModel", "NSObject"], fields)
        return archive.data(root: modelUID)
    }

    private mutating func writeEntity(_ entity: NSEntityDescription, model: Int) {
        let name = entity.name!
        let uid = entityUIDs[name]!
        let className = entity.managedObjectClassName.flatMap { $0 == "NSManagedObject" ? nil : $0 }
        // Only subentities the model holds (one built in code may name others).
        let subentities = entity.subentities.filter { $0.name.flatMap { entityUIDs[$0] } != nil }.sorted { $0.name! < $1.name! }
        let archived = propertyUIDs[name]!
        let properties = entity.properties.filter { archived[$0.name] != nil }.sorted { $0.name < $1.name }
        var fields: [(String, KeyedArchiveWriter.Field)] = [
            ("NSEntityName", .reference(archive.string(name))),
            ("NSClassNameForEntity", .reference(archive.string(className))),
            ("NSManagedObjectModel", .reference(model)),
            ("NSSuperentity", .reference(entity.superentity?.name.flatMap { entityUIDs[$0] } ?? KeyedArchiveWriter.null)),
            (
                "NSSubentities",
                .reference(
                    archive.dictionary(
                        keys: subentities.map { archive.string($0.name!) }, values: subentities.map { entityUIDs[$0.name!]! },
                        Self.mutableDictionary))
            ),
            (
                "NSProperties",
                .reference(
                    archive.dictionary(
                        keys: properties.map { archive.string($0.name) }, values: properties.map { archived[$0.name]! },
                        Self.mutableDictionary))
            ),
            ("NSUserInfo", .reference(userInfo(entity.userInfo) ?? archive.dictionary(keys: [], values: []))),
            ("NSVersionHashModifier", .reference(archive.string(entity.versionHashModifier))),
            ("NSRenamingIdentifier", .reference(archive.string(entity.renamingIdentifier ?? name))),
        ]
        if entity.isAbstract { fields.append(("NSIsAbstract", .bool(true))) }
        let tuples = entity.uniquenessConstraints.map { tuple in
            archive.array(
                tuple.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }.map { archive.string($0) }, Self.mutableArray)
        }
        if !tuples.isEmpty { fields.append(("NSUniqueTuples", .reference(archive.array(tuples, Self.mutableArray)))) }
        if !entity.indexes.isEmpty {
            fields.append(("NSFetchIndexDescriptions", .reference(archive.array(entity.indexes.map { fetchIndex($0, entity: uid) }))))
            let compound = entity.indexes.map { index in archive.array(index.elements.map { archive.string(elementName($0)) }) }
            fields.append(("NSCompoundIndexes", .reference(archive.array(compound))))
        }
        archive.fill(uid, Self.entityClass, fields)
        for property in properties { writeProperty(property, in: entity) }
    }

    /// Whether `property` goes into the cache: all do but a fetched property whose predicate has
    /// a form archives here cannot hold, which would read back fetching everything.
    private static func isArchived(_ property: NSPropertyDescription) -> Bool {
        guard let fetched = property as? NSFetchedPropertyDescription, let predicate = fetched.fetchRequest?.predicate else { return true }
        var probe = KeyedArchiveWriter()
        return probe.predicate(predicate) != nil
    }

    private func elementName(_ element: NSFetchIndexElementDescription) -> String { element.property?.name ?? element.propertyName ?? "" }

    private mutating func fetchIndex(_ index: NSFetchIndexDescription, entity: Int) -> Int {
        let uid = archive.reserve()
        let elements = index.elements.map { element in
            archive.instance(
                ["NSFetchIndexElementDescription", "NSObject"],
                [
                    ("NSPropertyName", .reference(archive.string(elementName(element)))),
                    ("NSFetchIndexElementType", .integer(element.collationType == .rTree ? 1 : 0)),
                    ("NSAscending", .bool(element.isAscending)), ("NSFetchIndexDescription", .reference(uid)),
                ])
        }
        let partial = index.partialIndexPredicate.flatMap { archive.predicate($0) } ?? KeyedArchiveWriter.null
        archive.fill(
            uid, ["NSFetchIndexDescription", "NSObject"],
            [
                ("NSIndexName", .reference(archive.string(index.name))), ("NSIndexElements", .reference(archive.array(elements))),
                ("NSEntity", .reference(entity)), ("NSPartialIndexPredicate", .reference(partial)),
            ])
        return uid
    }

    /// A property as `entity` lists it: its own, or its copy of an inherited one.
    private mutating func writeProperty(_ property: NSPropertyDescription, in entity: NSEntityDescription) {
        let uid = propertyUIDs[entity.name!]![property.name]!
        var fields = commonFields(property, entity: entityUIDs[entity.name!]!)
        let className: [String]
        switch property {
        case let relationship as NSRelationshipDescription:
            className = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
            fields += relationshipFields(relationship)
        case let fetched as NSFetchedPropertyDescription:
            className = ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"]
            if let request = fetched.fetchRequest, let entityName = request.entityName ?? request.entity?.name {
                fields.append(("_NSFetchRequestEntityName", .reference(archive.string(entityName))))
                fields.append(("NSFetchRequest", .reference(fetchRequest(request, entityName: entityName))))
            }
        case let attribute as NSAttributeDescription:
            className = attributeClass(attribute)
            fields += attributeFields(attribute, entity: entityUIDs[entity.name!]!)
        default:
            className = ["NSPropertyDescription", "NSObject"]
        }
        archive.fill(uid, className, fields)
    }

    private func attributeClass(_ attribute: NSAttributeDescription) -> [String] {
        let base = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        switch attribute {
        case is NSDerivedAttributeDescription: return ["NSDerivedAttributeDescription"] + base
        case is NSCompositeAttributeDescription: return ["NSCompositeAttributeDescription"] + base
        default: return base
        }
    }

    /// The keys every property has, and `_P`: 1, +2 optional, +4 read-only, +8 transient, and
    /// 0x10/0x20/0x40/0x80 for no validation predicates/warnings/user info/version hash modifier.
    private mutating func commonFields(_ property: NSPropertyDescription, entity: Int) -> [(String, KeyedArchiveWriter.Field)] {
        // The model's own flags, not Core Data's implied ones (a derived attribute is read-only):
        // optionality is part of the version hash the cache must reproduce.
        let isReadOnly = property.isReadOnly
        let isTransient = property.isTransient
        let isOptional = property.isOptional
        let hasUserInfo = !(property.userInfo ?? [:]).isEmpty
        var packed = 1
        if isOptional { packed |= 2 }
        if isReadOnly { packed |= 4 }
        if isTransient { packed |= 8 }
        if property.validationPredicates.isEmpty { packed |= 0x10 }
        if property.validationWarnings.isEmpty { packed |= 0x20 }
        if !hasUserInfo { packed |= 0x40 }
        if property.versionHashModifier == nil { packed |= 0x80 }
        var fields: [(String, KeyedArchiveWriter.Field)] = [
            ("NSPropertyName", .reference(archive.string(property.name))), ("NSEntity", .reference(entity)),
            ("NSRenamingIdentifier", .reference(archive.string(property.renamingIdentifier ?? property.name))), ("_P", .integer(packed)),
        ]
        if isOptional { fields.append(("NSIsOptional", .bool(true))) }
        if isReadOnly { fields.append(("NSIsReadOnly", .bool(true))) }
        if isTransient { fields.append(("NSIsTransient", .bool(true))) }
        if property.isIndexed { fields.append(("NSIsIndexed", .bool(true))) }
        if let modifier = property.versionHashModifier { fields.append(("NSVersionHashModifier", .reference(archive.string(modifier)))) }
        if hasUserInfo, let info = userInfo(property.userInfo) { fields.append(("NSUserInfo", .reference(info))) }
        let predicates = property.validationPredicates.compactMap { archive.predicate($0) }
        if !predicates.isEmpty, predicates.count == property.validationPredicates.count {
            fields.append(("NSValidationPredicates", .reference(archive.array(predicates))))
            let warnings = property.validationWarnings.map { archive.value($0) }
            fields.append(("NSValidationWarnings", .reference(archive.array(warnings))))
        }
        return fields
    }

    private mutating func relationshipFields(_ relationship: NSRelationshipDescription) -> [(String, KeyedArchiveWriter.Field)] {
        let destinationName = relationship.destinationEntity?.name
        var fields: [(String, KeyedArchiveWriter.Field)] = [
            ("NSDestinationEntity", .reference(destinationName.flatMap { entityUIDs[$0] } ?? KeyedArchiveWriter.null)),
            ("_NSDestinationEntityName", .reference(archive.string(destinationName))),
            ("NSMinCount", .integer(relationship.minCount)), ("NSMaxCount", .integer(relationship.maxCount == .max ? -1 : relationship.maxCount)),
            ("NSDeleteRule", .integer(Int(relationship.deleteRule.rawValue))),
        ]
        if let inverse = relationship.inverseRelationship, let destinationName {
            fields.append(("NSInverseRelationship", .reference(propertyUIDs[destinationName]?[inverse.name] ?? KeyedArchiveWriter.null)))
            fields.append(("_NSInverseRelationshipName", .reference(archive.string(inverse.name))))
        }
        if relationship.isOrdered { fields.append(("NSIsOrdered", .bool(true))) }
        return fields
    }

    private mutating func attributeFields(_ attribute: NSAttributeDescription, entity: Int) -> [(String, KeyedArchiveWriter.Field)] {
        typealias AttributeFlag = CompiledModelReader.AttributeFlag
        var flags = 0
        if attribute.allowsExternalBinaryDataStorage { flags |= AttributeFlag.externalStorage }
        if attribute.preservesValueInHistoryOnDeletion { flags |= AttributeFlag.preserveAfterDeletion }
        if attribute.rules.minimum != nil { flags |= AttributeFlag.hasMinimum }
        if attribute.rules.maximum != nil { flags |= AttributeFlag.hasMaximum }
        let defaultValue: Int
        switch (attribute.attributeType, attribute.defaultValue) {
        case (_, nil), (.binaryDataAttributeType, _), (.transformableAttributeType, _), (.objectIDAttributeType, _), (.compositeAttributeType, _),
            (.undefinedAttributeType, _):
            // Defaults Xcode cannot express (and a reader could not make) are left out.
            defaultValue = KeyedArchiveWriter.null
        case (.booleanAttributeType, let value?):
            defaultValue = archive.bool((value as? NSNumber)?.boolValue ?? (value as? Bool) ?? false)
        case (.decimalAttributeType, let value?):
            // As its decimal text, every digit kept (an `NSNumber` would pass through a double).
            defaultValue = archive.string((value as? NSDecimalNumber)?.stringValue ?? (value as? Decimal).map { NSDecimalNumber(decimal: $0).stringValue } ?? "\(value)")
        case (_, let value?):
            defaultValue = archive.value(value)
        }
        var fields: [(String, KeyedArchiveWriter.Field)] = [
            ("NSAttributeType", .integer(Int(attribute.attributeType.rawValue))),
            ("NSAttributeValueClassName", .reference(archive.string(attribute.attributeValueClassName ?? Self.valueClassName(attribute.attributeType)))),
            ("NSDefaultValue", .reference(defaultValue)),
            ("NSValueTransformerName", .reference(archive.string(attribute.valueTransformerName))), ("NSFlagsKey", .integer(flags)),
        ]
        if let minimum = attribute.rules.minimum { fields.append(("NSMinValueName", .real(minimum))) }
        if let maximum = attribute.rules.maximum { fields.append(("NSMaxValueName", .real(maximum))) }
        switch attribute {
        case let derived as NSDerivedAttributeDescription:
            let expression = derived.derivationExpression.flatMap { archive.expression($0) } ?? KeyedArchiveWriter.null
            fields += [("NSDerivationExpression", .reference(expression)), ("NSFilteringPredicate", .reference(KeyedArchiveWriter.null))]
        case let composite as NSCompositeAttributeDescription:
            // Elements are archived as attributes of the composite's entity.
            let elements = composite.elements.map { element in
                archive.instance(attributeClass(element), commonFields(element, entity: entity) + attributeFields(element, entity: entity))
            }
            fields.append(("NSElements", .reference(archive.array(elements))))
        default:
            break
        }
        return fields
    }

    /// The class Core Data names for an attribute type's values.
    private static func valueClassName(_ type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType, .floatAttributeType,
            .booleanAttributeType:
            "NSNumber"
        case .decimalAttributeType: "NSDecimalNumber"
        case .stringAttributeType: "NSString"
        case .dateAttributeType: "NSDate"
        case .binaryDataAttributeType: "NSData"
        case .UUIDAttributeType: "NSUUID"
        case .URIAttributeType: "NSURL"
        case .compositeAttributeType: "NSDictionary"
        default: nil
        }
    }

    /// A fetched property's request: its entity, predicate and limit, with the keys Core Data
    /// archives a request with.
    private mutating func fetchRequest(_ request: NSFetchRequest<NSFetchRequestResult>, entityName: String) -> Int {
        let predicate = request.predicate.flatMap { archive.predicate($0) } ?? KeyedArchiveWriter.null
        return archive.instance(
            ["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"],
            [
                ("NSEntity", .reference(entityUIDs[entityName] ?? KeyedArchiveWriter.null)), ("NSPredicate", .reference(predicate)),
                ("NSFetchLimit", .integer(request.fetchLimit)), ("NSFetchOffset", .integer(request.fetchOffset)),
                ("NSBatchSize", .integer(request.fetchBatchSize)), ("NSResultType", .integer(0)),
                ("NSSortDescriptors", .reference(KeyedArchiveWriter.null)), ("NSValuesToFetch", .reference(KeyedArchiveWriter.null)),
                ("NSValuesToGroupBy", .reference(KeyedArchiveWriter.null)), ("NSHavingPredicate", .reference(KeyedArchiveWriter.null)),
                ("NSRelationshipKeyPathsForPrefetching", .reference(KeyedArchiveWriter.null)),
            ])
    }

    /// A user info dictionary with string keys; nil when empty.
    private mutating func userInfo(_ info: [AnyHashable: Any]?) -> Int? {
        guard let info, !info.isEmpty else { return nil }
        let entries = info.compactMap { key, value in (key.base as? String).map { ($0, value) } }.sorted { $0.0 < $1.0 }
        return archive.dictionary(keys: entries.map { archive.string($0.0) }, values: entries.map { archive.value($0.1) })
    }
}
