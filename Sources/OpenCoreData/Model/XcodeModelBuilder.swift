/// Turns the XML tree of a model's `contents` file into an `NSManagedObjectModel`.
///
/// Entities are created first and cross-references (parent entities, destinations, inverses,
/// configuration members, fetch request entities) resolved afterwards, because the XML may name an
/// entity before declaring it.
struct XcodeModelBuilder {
    /// The `contents` file, named in every error.
    let file: URL
    /// The model's `<composite>` definitions by name, which composite attributes refer to.
    var composites: [String: ModelXMLElement] = [:]

    init(file: URL) { self.file = file }

    /// A relationship and its XML, kept until every entity exists.
    struct PendingRelationship {
        let relationship: NSRelationshipDescription
        let element: ModelXMLElement
    }

    /// An entity and its XML, kept until the hierarchy and destinations can be resolved.
    struct PendingEntity {
        let entity: NSEntityDescription
        let element: ModelXMLElement
        let relationships: [PendingRelationship]
    }

    func model(from root: ModelXMLElement) throws -> NSManagedObjectModel {
        guard root.name == "model" else {
            throw corrupt(root, "the root element is <\(root.name)>, not <model>")
        }
        var builder = self
        for element in root.children(named: "composite") {
            guard let name = element["name"], !name.isEmpty else { throw corrupt(element, "a composite has no name") }
            guard builder.composites.updateValue(element, forKey: name) == nil else {
                throw corrupt(element, "two composites are named '\(name)'")
            }
        }
        return try builder.entities(from: root)
    }

    private func entities(from root: ModelXMLElement) throws -> NSManagedObjectModel {
        var pending: [PendingEntity] = []
        var byName: [String: NSEntityDescription] = [:]
        for element in root.children(named: "entity") {
            let entry = try makeEntity(element)
            let name = entry.entity.name!
            guard byName[name] == nil else { throw corrupt(element, "two entities are named '\(name)'") }
            byName[name] = entry.entity
            pending.append(entry)
        }
        try linkHierarchy(pending, byName: byName)
        for entry in pending {
            try checkProperties(entry)
            for item in entry.relationships { try resolve(item, of: entry.entity, byName: byName) }
            try resolveFetchedProperties(of: entry, byName: byName)
            try resolveIndexes(of: entry)
            try checkConstraints(of: entry)
        }

        let model = NSManagedObjectModel()
        model.entities = pending.map(\.entity)
        if let identifier = root["userDefinedModelVersionIdentifier"] { model.versionIdentifiers = [identifier] }
        for element in root.children(named: "configuration") {
            try addConfiguration(element, to: model, byName: byName)
        }
        for element in root.children(named: "fetchRequest") {
            try addFetchRequest(element, to: model, byName: byName)
        }
        return model
    }

    // MARK: Entities

    private func makeEntity(_ element: ModelXMLElement) throws -> PendingEntity {
        guard let name = element["name"], !name.isEmpty else { throw corrupt(element, "an entity has no name") }
        let entity = NSEntityDescription()
        entity.name = name
        if let className = element["representedClassName"], !className.isEmpty {
            entity.managedObjectClassName = className
        }
        entity.isAbstract = element.flag("isAbstract")
        entity.renamingIdentifier = element["elementID"]
        entity.versionHashModifier = element["versionHashModifier"]
        entity.userInfo = element.userInfo

        var properties: [NSPropertyDescription] = []
        var relationships: [PendingRelationship] = []
        var seen = Set<String>()
        for child in element.children {
            let property: NSPropertyDescription
            switch child.name {
            case "attribute":
                property = try makeAttribute(child, entityName: name)
            case "relationship":
                let relationship = try makeRelationship(child, entityName: name)
                relationships.append(PendingRelationship(relationship: relationship, element: child))
                property = relationship
            case "fetchedProperty":
                property = try makeFetchedProperty(child, entityName: name)
            default:
                continue
            }
            guard seen.insert(property.name).inserted else {
                throw corrupt(child, "entity '\(name)' has two properties named '\(property.name)'")
            }
            properties.append(property)
        }
        entity.properties = properties
        entity.uniquenessConstraints = uniquenessConstraints(in: element)
        return PendingEntity(entity: entity, element: element, relationships: relationships)
    }

    /// Wires `parentEntity` names into superentity/subentities, refusing unknown parents and cycles
    /// (a cycle would make every inherited-property lookup recurse forever).
    private func linkHierarchy(_ pending: [PendingEntity], byName: [String: NSEntityDescription]) throws {
        var parentNames: [String: String] = [:]
        for entry in pending {
            guard let parentName = entry.element["parentEntity"] else { continue }
            guard byName[parentName] != nil else {
                throw corrupt(
                    entry.element, "entity '\(entry.entity.name!)' has an unknown parentEntity '\(parentName)'")
            }
            parentNames[entry.entity.name!] = parentName
        }
        for entry in pending {
            var visited: Set<String> = [entry.entity.name!]
            var current = entry.entity.name!
            while let parent = parentNames[current] {
                guard visited.insert(parent).inserted else {
                    throw corrupt(entry.element, "entity '\(entry.entity.name!)' inherits from itself")
                }
                guard visited.count <= ModelLimits.maximumHierarchyDepth + 1 else {
                    throw corrupt(entry.element, ModelLimits.tooDeep(entry.entity.name!))
                }
                current = parent
            }
        }
        // Each parent's subentities are set once, in file order: appending them one at a time
        // would run the property's observer once per child.
        var children: [String: [NSEntityDescription]] = [:]
        for entry in pending {
            guard let parentName = parentNames[entry.entity.name!] else { continue }
            children[parentName, default: []].append(entry.entity)
        }
        for (parentName, subentities) in children { byName[parentName]!.subentities = subentities }
    }

    /// Refuses more properties than an object can hold, and a name its superentity declares too.
    private func checkProperties(_ entry: PendingEntity) throws {
        let inheritedProperties = entry.entity.superentity?.properties ?? []
        let count = inheritedProperties.count + entry.entity.declaredProperties.count
        guard count <= ModelLimits.maximumProperties else {
            throw corrupt(entry.element, ModelLimits.tooManyProperties(entry.entity.name!, count: count))
        }
        guard let superentity = entry.entity.superentity else { return }
        let inherited = Set(inheritedProperties.map(\.name))
        for property in entry.entity.declaredProperties where inherited.contains(property.name) {
            throw corrupt(
                entry.element,
                "property '\(property.name)' of entity '\(entry.entity.name!)' is already declared by its superentity '\(superentity.name!)'")
        }
    }

    // MARK: Model-level elements

    private func addConfiguration(
        _ element: ModelXMLElement, to model: NSManagedObjectModel, byName: [String: NSEntityDescription]
    ) throws {
        guard let name = element["name"], !name.isEmpty else { throw corrupt(element, "a configuration has no name") }
        var members: [NSEntityDescription] = []
        for member in element.children(named: "memberEntity") {
            guard let entityName = member["name"], let entity = byName[entityName] else {
                throw corrupt(
                    member, "configuration '\(name)' lists an unknown entity '\(member["name"] ?? "")'")
            }
            members.append(entity)
        }
        model.setEntities(members, forConfigurationName: name)
    }

    /// Records a fetch request template. Its `predicateString` is kept aside until predicates can
    /// be parsed, so the template's predicate is nil for now.
    private func addFetchRequest(
        _ element: ModelXMLElement, to model: NSManagedObjectModel, byName: [String: NSEntityDescription]
    ) throws {
        guard let name = element["name"], !name.isEmpty else { throw corrupt(element, "a fetch request has no name") }
        guard let entityName = element["entity"], let entity = byName[entityName] else {
            throw corrupt(element, "fetch request '\(name)' names an unknown entity '\(element["entity"] ?? "")'")
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.entity = entity
        request.fetchLimit = try integer(element, "fetchLimit") ?? 0
        request.fetchBatchSize = try integer(element, "fetchBatchSize") ?? 0
        if let type = try integer(element, "resultType") {
            request.resultType = NSFetchRequestResultType(rawValue: UInt(type))
        }
        request.includesSubentities = element.flag("includeSubentities", default: true)
        request.includesPropertyValues = element.flag("includePropertyValues", default: true)
        request.includesPendingChanges = element.flag("includesPendingChanges", default: true)
        request.returnsObjectsAsFaults = element.flag("returnObjectsAsFaults", default: true)
        request.returnsDistinctResults = element.flag("returnDistinctResults")
        if let predicate = element["predicateString"] {
            model.fetchRequestTemplatePredicateStrings[name] = predicate
            // Xcode's model compiler refuses a predicate that does not parse; so does the loader.
            do {
                request.predicate = try NSPredicate(validatingFormat: predicate)
            } catch {
                throw corrupt(element, "the predicate of fetch request '\(name)' does not parse: \((error as NSError).localizedDescription)")
            }
        }
        model.setFetchRequestTemplate(request, forName: name)
    }

    // MARK: Helpers

    /// A non-negative integer XML attribute; a value that is not one makes the file corrupt.
    func integer(_ element: ModelXMLElement, _ attribute: String) throws -> Int? {
        guard let text = element[attribute] else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
            throw corrupt(element, "\(attribute)=\"\(text)\" is not a non-negative integer")
        }
        return value
    }

    func corrupt(_ element: ModelXMLElement, _ problem: String) -> NSError {
        XcodeModelLoader.corrupt(file, line: element.line, problem)
    }
}
