/// Reads a compiled mapping model, the `.cdm` keyed archive of `NSMappingModel` that Xcode's
/// mapping compiler writes: entity mappings with their names, types, entities and version
/// hashes, source expressions, property mappings and policy class names.
enum MappingModelArchiveReader {
    struct Failure: Error {
        let message: String
    }

    static func read(_ data: Data) throws(Failure) -> [NSEntityMapping] {
        guard let archive = KeyedArchive(data), let rootUID = archive.root, let root = archive.instance(rootUID),
            root.className == "NSMappingModel"
        else { throw Failure(message: "it is not a compiled mapping model (a keyed archive of NSMappingModel)") }
        guard let list = archive.reference(root, "NSEntityMappings"), let uids = archive.elements(list) else {
            throw Failure(message: "it has no entity mappings")
        }
        let expressions = ArchivedExpressionReader(archive: archive)
        var mappings: [NSEntityMapping] = []
        for uid in uids {
            guard let instance = archive.instance(uid), instance.className == "NSEntityMapping",
                let name = archive.string(instance, "NSMappingName")
            else { throw Failure(message: "an entity mapping is damaged") }
            let mapping = NSEntityMapping()
            mapping.name = name
            guard let type = NSEntityMappingType(rawValue: UInt(clamping: archive.integer(instance, "NSMappingType") ?? 0)) else {
                throw Failure(message: "entity mapping \(name) has an unknown type")
            }
            mapping.mappingType = type
            mapping.sourceEntityName = archive.string(instance, "NSSourceEntityName")
            mapping.destinationEntityName = archive.string(instance, "NSDestinationEntityName")
            mapping.sourceEntityVersionHash = hash(archive, instance, "NSSourceEntityVersionHash")
            mapping.destinationEntityVersionHash = hash(archive, instance, "NSDestinationEntityVersionHash")
            mapping.entityMigrationPolicyClassName = archive.string(instance, "NSEntityMigrationPolicyClassName")
            mapping.userInfo = archive.reference(instance, "NSUserInfo").flatMap { KeyedArchiveReader.value(uid: $0, in: archive) } as? [AnyHashable: Any]
            do {
                mapping.sourceExpression = try archive.reference(instance, "NSSourceExpression").map { uid throws(ArchivedExpressionReader.Failure) in
                    try expressions.expression(uid)
                }
                mapping.attributeMappings = try propertyMappings(archive, instance, "NSAttributeMappings", expressions)
                mapping.relationshipMappings = try propertyMappings(archive, instance, "NSRelationshipMappings", expressions)
            } catch {
                throw Failure(message: "entity mapping \(name): \(error.message)")
            }
            mappings.append(mapping)
        }
        return mappings
    }

    private static func hash(_ archive: KeyedArchive, _ instance: KeyedArchive.Instance, _ key: String) -> Data? {
        archive.reference(instance, key).flatMap { KeyedArchiveReader.value(uid: $0, in: archive) as? NSData }.map { Data($0) }
    }

    private static func propertyMappings(
        _ archive: KeyedArchive, _ instance: KeyedArchive.Instance, _ key: String, _ expressions: ArchivedExpressionReader
    ) throws(ArchivedExpressionReader.Failure) -> [NSPropertyMapping]? {
        guard let list = archive.reference(instance, key) else { return nil }
        guard let uids = archive.elements(list) else { throw ArchivedExpressionReader.Failure(message: "its property mappings are damaged") }
        var result: [NSPropertyMapping] = []
        for uid in uids {
            guard let property = archive.instance(uid), property.className == "NSPropertyMapping" else {
                throw ArchivedExpressionReader.Failure(message: "a property mapping is damaged")
            }
            let mapping = NSPropertyMapping()
            mapping.name = archive.string(property, "NSDestinationPropertyName")
            mapping.valueExpression = try archive.reference(property, "NSValueExpression").map { uid throws(ArchivedExpressionReader.Failure) in
                try expressions.expression(uid)
            }
            mapping.userInfo = archive.reference(property, "NSUserInfo").flatMap { KeyedArchiveReader.value(uid: $0, in: archive) } as? [AnyHashable: Any]
            result.append(mapping)
        }
        return result
    }
}
