/// Reads a compiled model, the `.mom` keyed archive of `NSManagedObjectModel` that Xcode's model
/// compiler writes into an app bundle, into the element tree a `contents` XML file gives. One
/// builder then makes the model from either, with the same checks: an archive is as untrusted as
/// any file, and a model from it must hash exactly as the `.xcdatamodel` it was compiled from.
///
/// The archive's keys are those `NSEntityDescription`, `NSAttributeDescription` and
/// `NSRelationshipDescription` write (`NSEntityName`, `NSAttributeType`, `NSFlagsKey`, …); values
/// are re-expressed the way Xcode writes them in XML (`attributeType="Integer 16"`, `YES`).
enum CompiledModelReader {
    struct Failure: Error {
        let message: String
    }

    /// A compiled model: its element tree and version identifiers (a set in the archive, where the
    /// XML holds one).
    struct Result {
        let root: ModelXMLElement
        let versionIdentifiers: Set<AnyHashable>
    }

    /// Whether `data` starts as a binary property list does, which is how a `.mom` file differs
    /// from a `contents` XML file whatever its name.
    /// `NSFlagsKey` bits of an archived attribute, as Core Data writes them.
    enum AttributeFlag {
        static let hasMaximum = 1
        static let hasMinimum = 2
        static let externalStorage = 4
        static let preserveAfterDeletion = 16
    }

    static func looksCompiled(_ data: Data) -> Bool { data.starts(with: Array("bplist00".utf8)) }

    static func read(_ data: Data) throws(Failure) -> Result {
        guard let archive = KeyedArchive(data), let rootUID = archive.root, let model = archive.instance(rootUID),
            model.className == "NSManagedObjectModel"
        else { throw Failure(message: "it is not a compiled model (a keyed archive of NSManagedObjectModel)") }
        let reader = Reader(archive: archive)
        var children: [ModelXMLElement] = []
        if let entities = archive.reference(model, "NSEntities") {
            guard let entries = archive.entries(entities) else { throw Failure(message: "its entity table is damaged") }
            // Entities in name order, as Xcode writes them in XML.
            for entry in entries.sorted(by: { $0.key < $1.key }) {
                children.append(try reader.entity(entry.value))
            }
        }
        // Composite attributes name a `<composite>` definition, as in XML.
        children += reader.composites
        // Configurations: sets of entities by name, as `<configuration>` elements.
        if let configurations = archive.reference(model, "NSConfigurations"), let entries = archive.entries(configurations) {
            for entry in entries.sorted(by: { $0.key < $1.key }) {
                let members = (archive.elements(entry.value) ?? []).compactMap { archive.instance($0).flatMap { archive.string($0, "NSEntityName") } }
                children.append(
                    ModelXMLElement(
                        name: "configuration", attributes: ["name": entry.key],
                        children: members.sorted().map { ModelXMLElement(name: "memberEntity", attributes: ["name": $0], line: 0) }, line: 0))
            }
        }
        var identifiers = Set<AnyHashable>()
        if let set = archive.reference(model, "NSVersionIdentifiers") {
            for uid in archive.elements(set) ?? [] {
                // As the XML gives them: Swift strings, not bridged `NSString`s, which hash apart.
                switch KeyedArchiveReader.value(uid: uid, in: archive) {
                case let text as NSString: identifiers.insert(text as String)
                case let value as NSObject: identifiers.insert(value)
                default: break
                }
            }
        }
        // Fetch request templates are archived `NSFetchRequest`s with archived predicates, which
        // this reader does not decode; a model that has some is refused rather than loaded
        // without them.
        if let templates = archive.reference(model, "NSFetchRequestTemplates"), archive.entries(templates)?.isEmpty == false {
            throw Failure(message: "it has fetch request templates, which compiled models cannot carry here yet; load the .xcdatamodeld instead")
        }
        return Result(root: ModelXMLElement(name: "model", attributes: [:], children: children, line: 0), versionIdentifiers: identifiers)
    }

    private final class Reader {
        let archive: KeyedArchive
        /// The `<composite>` definitions the composite attributes read so far name, one each.
        private(set) var composites: [ModelXMLElement] = []

        init(archive: KeyedArchive) { self.archive = archive }

        func entity(_ uid: Int) throws(Failure) -> ModelXMLElement {
            guard let entity = archive.instance(uid), entity.className == "NSEntityDescription",
                let name = archive.string(entity, "NSEntityName")
            else { throw Failure(message: "an entity is damaged") }
            var attributes: [String: String] = ["name": name]
            attributes["representedClassName"] = archive.string(entity, "NSClassNameForEntity")
            if let parent = archive.reference(entity, "NSSuperentity") {
                guard let parentEntity = archive.instance(parent), let parentName = archive.string(parentEntity, "NSEntityName") else {
                    throw Failure(message: "the parent of entity '\(name)' is damaged")
                }
                attributes["parentEntity"] = parentName
            }
            if archive.bool(entity, "NSIsAbstract") == true { attributes["isAbstract"] = "YES" }
            attributes["elementID"] = renamingIdentifier(entity, name: name)
            attributes["versionHashModifier"] = archive.string(entity, "NSVersionHashModifier")

            var children: [ModelXMLElement] = []
            if let info = userInfo(entity) { children.append(info) }
            if let properties = archive.reference(entity, "NSProperties") {
                guard let entries = archive.entries(properties) else { throw Failure(message: "the properties of entity '\(name)' are damaged") }
                // A store's model cache lists a subentity's inherited properties too (copies of its
                // superentity's): only those the superentity has not are the entity's own.
                let inherited = Set(
                    archive.reference(entity, "NSSuperentity").flatMap(archive.instance).flatMap { archive.reference($0, "NSProperties") }
                        .flatMap(archive.entries)?.map(\.key) ?? [])
                for entry in entries.sorted(by: { $0.key < $1.key }) where !inherited.contains(entry.key) {
                    children.append(try property(entry.value, entityName: name))
                }
            }
            if let constraints = try uniquenessConstraints(entity, entityName: name) { children.append(constraints) }
            children += try fetchIndexes(entity, entityName: name)
            return ModelXMLElement(name: "entity", attributes: attributes, children: children, line: 0)
        }

        private func property(_ uid: Int, entityName: String) throws(Failure) -> ModelXMLElement {
            guard let property = archive.instance(uid), let name = archive.string(property, "NSPropertyName") else {
                throw Failure(message: "a property of entity '\(entityName)' is damaged")
            }
            var (attributes, children) = common(property, name: name)
            switch property.className {
            case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
                try describeAttribute(property, name: "'\(name)' of entity '\(entityName)'", into: &attributes)
                if property.className == "NSDerivedAttributeDescription" {
                    guard let uid = archive.reference(property, "NSDerivationExpression"),
                        let expression = try? ArchivedExpressionReader(archive: archive).expression(uid)
                    else { throw Failure(message: "derived attribute '\(name)' of entity '\(entityName)' has no readable derivation") }
                    attributes["derived"] = "YES"
                    attributes["derivationExpression"] = PredicateFormatter.format(expression)
                }
                if property.className == "NSCompositeAttributeDescription" {
                    attributes["composite"] = try composite(property, name: "\(entityName).\(name)", path: [uid])
                }
                return ModelXMLElement(name: "attribute", attributes: attributes, children: children, line: 0)
            case "NSFetchedPropertyDescription":
                children.append(try fetchRequest(property, name: "'\(name)' of entity '\(entityName)'"))
                return ModelXMLElement(name: "fetchedProperty", attributes: attributes, children: children, line: 0)
            case "NSRelationshipDescription":
                try describeRelationship(property, name: "'\(name)' of entity '\(entityName)'", into: &attributes)
                return ModelXMLElement(name: "relationship", attributes: attributes, children: children, line: 0)
            case let other:
                throw Failure(message: "property '\(name)' of entity '\(entityName)' is an \(other), which is not supported")
            }
        }

        /// The settings every property has, as XML attributes, and its user info.
        private func common(_ property: KeyedArchive.Instance, name: String) -> ([String: String], [ModelXMLElement]) {
            var attributes: [String: String] = ["name": name]
            if archive.bool(property, "NSIsOptional") == true { attributes["optional"] = "YES" }
            if archive.bool(property, "NSIsTransient") == true { attributes["transient"] = "YES" }
            if archive.bool(property, "NSIsIndexed") == true { attributes["indexed"] = "YES" }
            // Not an Xcode attribute (its editor has no such setting), but part of the hash.
            // (A derived attribute is archived read-only as Core Data makes every one.)
            if archive.bool(property, "NSIsReadOnly") == true, property.className != "NSDerivedAttributeDescription" { attributes["readOnly"] = "YES" }
            attributes["elementID"] = renamingIdentifier(property, name: name)
            attributes["versionHashModifier"] = archive.string(property, "NSVersionHashModifier")
            return (attributes, userInfo(property).map { [$0] } ?? [])
        }

        /// A composite attribute's elements as a `<composite>` definition named `name`; returns the
        /// name the attribute refers to. `path` holds the composites being read around it, so that
        /// one containing itself is refused rather than read for ever.
        private func composite(_ attribute: KeyedArchive.Instance, name: String, path: [Int]) throws(Failure) -> String {
            guard let list = archive.reference(attribute, "NSElements"), let uids = archive.elements(list) else {
                throw Failure(message: "composite attribute \(name) has no readable elements")
            }
            guard path.count < ModelLimits.maximumHierarchyDepth, composites.count < ModelLimits.maximumProperties else {
                throw Failure(message: "composite attribute \(name) nests too deeply")
            }
            var elements: [ModelXMLElement] = []
            for uid in uids {
                guard !path.contains(uid), let element = archive.instance(uid), let elementName = archive.string(element, "NSPropertyName") else {
                    throw Failure(message: "an element of composite attribute \(name) is damaged or contains itself")
                }
                let settings = common(element, name: elementName)
                var attributes = settings.0
                try describeAttribute(element, name: "'\(elementName)' of composite \(name)", into: &attributes)
                if element.className == "NSCompositeAttributeDescription" {
                    attributes["composite"] = try composite(element, name: "\(name).\(elementName)", path: path + [uid])
                }
                elements.append(ModelXMLElement(name: "attribute", attributes: attributes, children: settings.1, line: 0))
            }
            composites.append(ModelXMLElement(name: "composite", attributes: ["name": name], children: elements, line: 0))
            return name
        }

        /// A fetched property's request as `<fetchRequest entity predicateString fetchLimit>`.
        private func fetchRequest(_ property: KeyedArchive.Instance, name: String) throws(Failure) -> ModelXMLElement {
            guard let requestUID = archive.reference(property, "NSFetchRequest"), let request = archive.instance(requestUID),
                let entityName = archive.string(property, "_NSFetchRequestEntityName")
                    ?? archive.reference(request, "NSEntity").flatMap(archive.instance).flatMap({ archive.string($0, "NSEntityName") })
            else { throw Failure(message: "fetched property \(name) has no readable request") }
            var attributes = ["name": "fetchedPropertyFetchRequest", "entity": entityName]
            if let predicateUID = archive.reference(request, "NSPredicate") {
                do {
                    attributes["predicateString"] = PredicateFormatter.format(try ArchivedExpressionReader(archive: archive).predicate(predicateUID))
                } catch {
                    throw Failure(message: "the predicate of fetched property \(name) cannot be read: \(error.message)")
                }
            }
            if let limit = archive.integer(request, "NSFetchLimit"), limit > 0 { attributes["fetchLimit"] = "\(limit)" }
            return ModelXMLElement(name: "fetchRequest", attributes: attributes, line: 0)
        }

        /// The renaming identifier the source gave. The compiler writes the element's own name
        /// where the source has none, which means the same to a migration; it is left out so that
        /// a compiled model reads exactly as its source.
        private func renamingIdentifier(_ instance: KeyedArchive.Instance, name: String) -> String? {
            guard let identifier = archive.string(instance, "NSRenamingIdentifier"), identifier != name else { return nil }
            return identifier
        }

        private func describeAttribute(_ attribute: KeyedArchive.Instance, name: String, into attributes: inout [String: String]) throws(Failure) {
            guard let raw = archive.integer(attribute, "NSAttributeType"), let type = NSAttributeType(rawValue: UInt(clamping: raw)) else {
                throw Failure(message: "attribute \(name) has an unknown attribute type")
            }
            attributes["attributeType"] = type.xcodeName
            attributes["valueTransformerName"] = archive.string(attribute, "NSValueTransformerName")
            if type == .transformableAttributeType { attributes["customClassName"] = archive.string(attribute, "NSAttributeValueClassName") }
            let flags = archive.integer(attribute, "NSFlagsKey") ?? 0
            if flags & AttributeFlag.externalStorage != 0 { attributes["allowsExternalBinaryDataStorage"] = "YES" }
            if flags & AttributeFlag.preserveAfterDeletion != 0 { attributes["preserveAfterDeletion"] = "YES" }
            let isDate = type == .dateAttributeType
            if flags & AttributeFlag.hasMinimum != 0, let minimum = number(attribute, "NSMinValueName") {
                attributes[isDate ? "minDateTimeInterval" : "minValueString"] = minimum
            }
            if flags & AttributeFlag.hasMaximum != 0, let maximum = number(attribute, "NSMaxValueName") {
                attributes[isDate ? "maxDateTimeInterval" : "maxValueString"] = maximum
            }
            // A default of a class this reader cannot make (an app's class for a transformable,
            // Apple's archived NSDecimalNumber) is left out rather than the whole model refused:
            // defaults are not hashed, and a migration takes the destination's (docs/compatibility.md).
            guard let uid = archive.reference(attribute, "NSDefaultValue"), type != .transformableAttributeType,
                let value = KeyedArchiveReader.value(uid: uid, in: archive)
            else { return }
            switch value {
            case let date as Date: attributes["defaultDateTimeInterval"] = "\(date.timeIntervalSinceReferenceDate)"
            case let number as NSNumber where type == .booleanAttributeType: attributes["defaultValueString"] = number.boolValue ? "YES" : "NO"
            case let number as NSNumber: attributes["defaultValueString"] = number.stringValue
            case let uuid as UUID: attributes["defaultValueString"] = uuid.uuidString
            case let url as URL: attributes["defaultValueString"] = url.absoluteString
            case let text as String: attributes["defaultValueString"] = text
            default: break
            }
        }

        /// A bound stored inline as an integer or a real number, as a decimal string.
        private func number(_ instance: KeyedArchive.Instance, _ key: String) -> String? {
            guard let field = instance.fields[key] else { return nil }
            switch archive.list.value(at: field) {
            case .integer(let value)?: return "\(value)"
            case .real(let value)? where value.isFinite: return "\(value)"
            default: return nil
            }
        }

        private func describeRelationship(_ relationship: KeyedArchive.Instance, name: String, into attributes: inout [String: String]) throws(Failure) {
            guard let destinationUID = archive.reference(relationship, "NSDestinationEntity"),
                let destination = archive.instance(destinationUID), let destinationName = archive.string(destination, "NSEntityName")
            else { throw Failure(message: "relationship \(name) has no destination entity") }
            attributes["destinationEntity"] = destinationName
            if let inverseUID = archive.reference(relationship, "NSInverseRelationship") {
                guard let inverse = archive.instance(inverseUID), let inverseName = archive.string(inverse, "NSPropertyName") else {
                    throw Failure(message: "the inverse of relationship \(name) is damaged")
                }
                attributes["inverseName"] = inverseName
            }
            var maxCount = archive.integer(relationship, "NSMaxCount") ?? 0
            // -1 is how Core Data archives a limit of `Int.max` ("no limit" in a model built in
            // code), which hashes apart from 0, the other way of saying it.
            if maxCount == -1 { maxCount = .max }
            let minCount = archive.integer(relationship, "NSMinCount") ?? 0
            guard maxCount >= 0, minCount >= 0 else { throw Failure(message: "relationship \(name) has a negative count") }
            attributes["maxCount"] = "\(maxCount)"
            attributes["minCount"] = "\(minCount)"
            if maxCount != 1 { attributes["toMany"] = "YES" }
            if archive.bool(relationship, "NSIsOrdered") == true { attributes["ordered"] = "YES" }
            switch archive.integer(relationship, "NSDeleteRule") ?? 1 {
            case 0: attributes["deletionRule"] = "No Action"
            case 1: attributes["deletionRule"] = "Nullify"
            case 2: attributes["deletionRule"] = "Cascade"
            case 3: attributes["deletionRule"] = "Deny"
            case let other: throw Failure(message: "relationship \(name) has an unknown delete rule \(other)")
            }
        }

        /// `NSUserInfo` as `<userInfo><entry key value/>`; entries whose value is not a string
        /// are written with their description, as Xcode's editor only makes strings.
        private func userInfo(_ instance: KeyedArchive.Instance) -> ModelXMLElement? {
            guard let uid = archive.reference(instance, "NSUserInfo"), let entries = archive.entries(uid), !entries.isEmpty else { return nil }
            let children = entries.map { entry in
                let value = KeyedArchiveReader.value(uid: entry.value, in: archive)
                return ModelXMLElement(name: "entry", attributes: ["key": entry.key, "value": value.map { "\($0)" } ?? ""], line: 0)
            }
            return ModelXMLElement(name: "userInfo", attributes: [:], children: children, line: 0)
        }

        /// `NSUniqueTuples`: an array of arrays of property names.
        private func uniquenessConstraints(_ entity: KeyedArchive.Instance, entityName: String) throws(Failure) -> ModelXMLElement? {
            guard let uid = archive.reference(entity, "NSUniqueTuples") else { return nil }
            guard let tuples = archive.elements(uid) else { throw Failure(message: "the uniqueness constraints of entity '\(entityName)' are damaged") }
            var constraints: [ModelXMLElement] = []
            for tuple in tuples {
                var names: [ModelXMLElement] = []
                for element in archive.elements(tuple) ?? [] {
                    let name = archive.string(uid: element) ?? archive.instance(element).flatMap { archive.string($0, "NSPropertyName") }
                    guard let name else { throw Failure(message: "a uniqueness constraint of entity '\(entityName)' is damaged") }
                    names.append(ModelXMLElement(name: "constraint", attributes: ["value": name], line: 0))
                }
                constraints.append(ModelXMLElement(name: "uniquenessConstraint", attributes: [:], children: names, line: 0))
            }
            return ModelXMLElement(name: "uniquenessConstraints", attributes: [:], children: constraints, line: 0)
        }

        /// `NSFetchIndexDescriptions` as `<fetchIndex>` elements. (`NSCompoundIndexes`, the older
        /// form Core Data writes beside them, says the same and is not read.)
        private func fetchIndexes(_ entity: KeyedArchive.Instance, entityName: String) throws(Failure) -> [ModelXMLElement] {
            guard let uid = archive.reference(entity, "NSFetchIndexDescriptions") else { return [] }
            guard let indexes = archive.elements(uid) else { throw Failure(message: "the fetch indexes of entity '\(entityName)' are damaged") }
            var result: [ModelXMLElement] = []
            for indexUID in indexes {
                guard let index = archive.instance(indexUID), let name = archive.string(index, "NSIndexName"),
                    let elementsUID = archive.reference(index, "NSIndexElements"), let elements = archive.elements(elementsUID)
                else { throw Failure(message: "a fetch index of entity '\(entityName)' is damaged") }
                if archive.reference(index, "NSPartialIndexPredicate") != nil {
                    throw Failure(message: "fetch index '\(name)' of entity '\(entityName)' has a partial-index predicate, which is not supported")
                }
                var items: [ModelXMLElement] = []
                for elementUID in elements {
                    guard let element = archive.instance(elementUID), let property = archive.string(element, "NSPropertyName") else {
                        throw Failure(message: "fetch index '\(name)' of entity '\(entityName)' is damaged")
                    }
                    let type = archive.integer(element, "NSFetchIndexElementType") == 1 ? "RTree" : "Binary"
                    let order = archive.bool(element, "NSAscending") == false ? "descending" : "ascending"
                    items.append(ModelXMLElement(name: "fetchIndexElement", attributes: ["property": property, "type": type, "order": order], line: 0))
                }
                result.append(ModelXMLElement(name: "fetchIndex", attributes: ["name": name], children: items, line: 0))
            }
            return result
        }
    }
}
