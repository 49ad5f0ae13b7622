
/// Which `NSManagedObject` subclass represents an entity. Linux has no Objective-C runtime to look
/// classes up by `managedObjectClassName` alone, so classes are found through
/// `NSClassFromString` (which takes `Module.Class` names), an explicit registration, or the short
/// class name of a subclass seen earlier.
extension NSManagedObjectModel {
    private static let classes = Locked<ClassRegistry>(ClassRegistry())

    private struct ClassRegistry {
        var byEntityName: [String: NSManagedObject.Type] = [:]
        var byClassName: [String: NSManagedObject.Type] = [:]
        var models: [Weak] = []
    }

    private struct Weak: @unchecked Sendable {
        // @unchecked Sendable: models are immutable once in use, and only read through the registry.
        weak var model: NSManagedObjectModel?
    }

    /// Makes `type` the class of the entity named `entityName` (by default the class's own name)
    /// in every model. Needed when a model's `representedClassName` has no module prefix and
    /// objects of that entity are fetched before any is created with `init(context:)`.
    ///
    /// - Parameters:
    ///   - type: The `NSManagedObject` subclass to use for the entity's objects.
    ///   - entityName: The name of the entity, or `nil` to use the class's unqualified name.
    public static func registerClass(_ type: NSManagedObject.Type, forEntityName entityName: String? = nil) {
        let name = entityName ?? shortName(of: type)
        let models = classes.withLock {
            $0.byEntityName[name] = type
            $0.byClassName[shortName(of: type)] = type
            $0.byClassName[String(reflecting: type)] = type
            return $0.models.compactMap(\.model)
        }
        // Entities that already resolved their class must see the registration.
        for model in models {
            model.entitiesByName[name]?.layout?.objectClass.withLock { $0 = type }
            model.entitiesByClass.withLock { $0 = [:] }
        }
    }

    static func noteInUse(_ model: NSManagedObjectModel) {
        classes.withLock { registry in
            registry.models.removeAll { $0.model == nil }
            registry.models.append(Weak(model: model))
        }
    }

    /// The entity of `type` in this model: registered, or named by its class name.
    func entity(for type: NSManagedObject.Type) -> NSEntityDescription? {
        if let entity = entitiesByClass.withLock({ $0[ObjectIdentifier(type)] }) { return entity }
        let entity = findEntity(for: type)
        // Only an entity of a model in use: until then entities and registrations may change.
        if let entity, isFrozen { entitiesByClass.withLock { $0[ObjectIdentifier(type)] = entity } }
        return entity
    }

    private func findEntity(for type: NSManagedObject.Type) -> NSEntityDescription? {
        Self.classes.withLock { $0.byClassName[Self.shortName(of: type)] = type }
        let full = String(reflecting: type)
        let short = Self.shortName(of: type)
        let candidates = entities.filter { entity in
            if Self.classes.withLock({ $0.byEntityName[entity.name ?? ""] }) == type { return true }
            let className = entity.managedObjectClassName ?? ""
            return className == full || className == short || className.split(separator: ".").last.map(String.init) == short
        }
        if let entity = candidates.first, entity.managedObjectClassName != "NSManagedObject" {
            entity.layout?.objectClass.withLock { $0 = type }
        }
        return candidates.first
    }

    static func entityForClass(_ type: NSManagedObject.Type) -> NSEntityDescription? {
        modelAndEntity(forClass: type)?.entity
    }

    /// The entity of `type`, with its model, which the caller keeps alive while it uses the
    /// entity (an entity does not keep its model).
    static func modelAndEntity(forClass type: NSManagedObject.Type) -> (model: NSManagedObjectModel, entity: NSEntityDescription)? {
        let models = classes.withLock { $0.models.compactMap(\.model) }
        for model in models.reversed() {
            if let entity = model.entity(for: type) { return (model, entity) }
        }
        return nil
    }

    static func registeredClass(forEntity entity: NSEntityDescription) -> NSManagedObject.Type? {
        let className = entity.managedObjectClassName ?? "NSManagedObject"
        let short = className.split(separator: ".").last.map(String.init) ?? className
        return classes.withLock { $0.byEntityName[entity.name ?? ""] ?? $0.byClassName[className] ?? $0.byClassName[short] }
    }

    /// The class `name` names: `Module.Class` as it is, `$(PRODUCT_MODULE_NAME).Class` and a bare
    /// `Class` in each of `modules`.
    static func namedClass(_ name: String, modules: [String]) -> NSManagedObject.Type? {
        let placeholder = "$(PRODUCT_MODULE_NAME)."
        let bare = name.hasPrefix(placeholder) ? String(name.dropFirst(placeholder.count)) : name
        guard !bare.isEmpty, bare != "NSManagedObject" else { return nil }
        if bare.contains("."), let type = NSClassFromString(bare) as? NSManagedObject.Type { return type }
        for module in modules {
            if let type = NSClassFromString("\(module).\(bare)") as? NSManagedObject.Type { return type }
        }
        return nil
    }

    static func shortName(of type: AnyClass) -> String {
        String(describing: type)
    }
}

extension NSEntityDescription {
    /// The class that represents the entity's objects.
    var managedObjectClass: NSManagedObject.Type {
        if let cached = layout?.objectClass.withLock({ $0 }) { return cached }
        let resolved = objectClassOverride ?? NSManagedObjectModel.registeredClass(forEntity: self)
            ?? NSManagedObjectModel.namedClass(managedObjectClassName ?? "", modules: managedObjectModel?.classModules ?? [])
            ?? NSManagedObject.self
        layout?.objectClass.withLock { $0 = resolved }
        return resolved
    }
}
