/// The schema of an object graph: its entities, their properties, configurations and fetch request
/// templates.
///
/// Build one in code, or load an Xcode model with `init(contentsOf:)`. Once a coordinator uses the
/// model it is frozen: further edits stop the program, as they raise in Core Data.
open class NSManagedObjectModel: NSObject, @unchecked Sendable {
    // @unchecked Sendable: mutable only until `freeze()`, which runs under `freezeLock`; read-only
    // afterwards.

    /// The model's entities. Setting them makes this model their owner.
    open var entities: [NSEntityDescription] = [] {
        willSet { assertMutable() }
        didSet { for entity in entities { entity.managedObjectModel = self } }
    }

    /// The entities by name.
    open var entitiesByName: [String: NSEntityDescription] {
        if let frozenEntitiesByName { return frozenEntitiesByName }
        return Dictionary(entities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Identifiers of this model version (Xcode's "Model Version Identifier"); stored in the store
    /// metadata, not used to match stores.
    open var versionIdentifiers: Set<AnyHashable> = [] { willSet { assertMutable() } }

    /// Strings shown to users for entity and property names in errors.
    open var localizationDictionary: [String: String]?

    private var configurationEntities: [String: [NSEntityDescription]] = [:]

    /// The names of the model's configurations.
    open var configurations: [String] { configurationEntities.keys.sorted() }

    /// The entities of a configuration; nil for an unknown name.
    ///
    /// - Parameter configuration: The configuration's name; `nil` or `"PF_DEFAULT_CONFIGURATION_NAME"`
    ///   stands for the default configuration, which holds every entity of the model.
    /// - Returns: The configuration's entities, or `nil` when the model has no configuration of that name.
    open func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, configuration != "PF_DEFAULT_CONFIGURATION_NAME" else { return entities }
        return configurationEntities[configuration]
    }

    /// Puts `entities` into the configuration named `configuration`.
    ///
    /// - Parameters:
    ///   - entities: The entities of the configuration, replacing any it had; they should be entities
    ///     of this model.
    ///   - configuration: The configuration's name; it is created if the model does not have it yet.
    open func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        assertMutable()
        configurationEntities[configuration] = entities
    }

    private var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
    /// Entities found for classes once the model is in use (`entity(for:)`), so that creating
    /// an object with `init(context:)` does not compare class names every time.
    let entitiesByClass = Locked<[ObjectIdentifier: NSEntityDescription]>([:])
    /// Modules to look a class named without a module up in (`moduleNames(besides:)`).
    var classModules: [String] = []
    /// The file or `.xcdatamodeld` bundle the model was loaded from: where a migration looks for
    /// the model versions a store may have been written with.
    var loadedFrom: URL?
    var fetchRequestTemplatePredicateStrings: [String: String] = [:]

    /// The model's named fetch requests.
    open var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] { templates }

    /// The fetch request template named `name`.
    ///
    /// - Parameter name: The name the template was stored under.
    /// - Returns: The stored request itself (not a copy), or `nil` when there is no template of that name.
    open func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        templates[name]
    }

    /// Stores `fetchRequest` under `name`.
    ///
    /// - Parameters:
    ///   - fetchRequest: The request to keep as a template, or `nil` to remove the one named `name`.
    ///   - name: The template's name, replacing any template already stored under it.
    open func setFetchRequestTemplate(_ fetchRequest: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        assertMutable()
        templates[name] = fetchRequest
    }

    /// The entity version hashes by entity name, as stored in a store's metadata.
    open var entityVersionHashesByName: [String: Data] {
        var hashes: [String: Data] = [:]
        for entity in entities { if let name = entity.name { hashes[name] = entity.versionHash } }
        return hashes
    }

    /// The model's checksum: base64 of the SHA-256 of its entity version hashes in entity-name
    /// order. Stores record it as `NSStoreModelVersionChecksumKey`, Xcode lists it in a `.momd`'s
    /// `VersionInfo.plist`, and staged migration names model versions by it.
    open var versionChecksum: String { VersionHasher.checksum(of: entityVersionHashesByName) }

    /// Whether a store with `metadata` was written with this model's entities (same version hashes).
    ///
    /// - Parameters:
    ///   - configuration: The configuration whose entities are compared, or `nil` for all entities.
    ///   - metadata: A store's metadata; its `NSStoreModelVersionHashes` entry is what is compared.
    /// - Returns: `true` when the store lists exactly the configuration's entities, each with the same
    ///   version hash; `false` otherwise, including when the metadata has no hashes or the
    ///   configuration is unknown.
    open func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let stored = metadata["NSStoreModelVersionHashes"] as? [String: Any],
            let mine = entities(forConfigurationName: configuration)
        else { return false }
        guard stored.count == mine.count else { return false }
        for entity in mine {
            guard let name = entity.name, let data = stored[name] as? Data, data == entity.versionHash else {
                return false
            }
        }
        return true
    }

    /// Creates an empty model.
    override public init() { super.init() }

    /// A model that holds the entities of all `models`; nil if two define the same entity name.
    ///
    /// - Parameter models: The models whose entities to gather, or `nil` for an empty model. The
    ///   entities are not copied: the new model becomes their owner. An entity without a name also
    ///   makes the initializer return `nil`.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        self.init()
        var seen = Set<String>()
        var all: [NSEntityDescription] = []
        for model in models ?? [] {
            for entity in model.entities {
                guard let name = entity.name, seen.insert(name).inserted else { return nil }
                all.append(entity)
            }
        }
        assignEntities(all)
    }

    /// Sets `entities` from outside an initializer, where its observer would not run and the
    /// entities would keep pointing at a model that may be freed.
    private func assignEntities(_ list: [NSEntityDescription]) { entities = list }

    // MARK: Freezing

    private let freezeLock = NSLock()
    private var frozenEntitiesByName: [String: NSEntityDescription]?
    /// Entities in Core Data's numbering order: index + 1 is the entity number (Z_ENT).
    package private(set) var entitiesInStoreOrder: [NSEntityDescription] = []
    /// Where the relational stores keep this model's objects (tables, columns, join tables),
    /// derived when the model is frozen; read only after, so without dynamic exclusivity checks.
    @exclusivity(unchecked) package private(set) var relationalLayout: RelationalLayout?
    /// Whether any relationship is many-to-many (a join table) or ordered: a save passes over its
    /// objects for these only when the model has them, which most models do not.
    private(set) var hasJoinTables = false
    private(set) var hasOrderedRelationships = false
    /// Whether any entity has a derived attribute, whose values a save reads back from the store.
    package private(set) var hasDerivedAttributes = false
    /// Whether any entity has a uniqueness constraint: a save under a merge policy looks for the
    /// rows its new objects would collide with only when the model has one.
    package private(set) var hasUniquenessConstraints = false

    /// Whether a coordinator uses the model, so that it may no longer change.
    var isFrozen: Bool {
        freezeLock.lock()
        defer { freezeLock.unlock() }
        return frozenEntitiesByName != nil
    }

    /// Gives the model the configuration `name` of `entities` unless a coordinator uses it, in
    /// one step with that check (containers may be made on several threads from one schema).
    ///
    /// - Parameters:
    ///   - name: The configuration's name.
    ///   - entities: Its entities, of this model.
    /// - Returns: Whether the model now has that configuration with exactly those entities:
    ///   false when it is in use and has none of that name, or one of other entities.
    package func defineConfiguration(_ name: String, entities: [NSEntityDescription]) -> Bool {
        freezeLock.lock()
        defer { freezeLock.unlock() }
        if let existing = configurationEntities[name] {
            return Set(existing.map(ObjectIdentifier.init)) == Set(entities.map(ObjectIdentifier.init))
        }
        guard frozenEntitiesByName == nil else { return false }
        configurationEntities[name] = entities
        return true
    }

    func assertMutable() {
        precondition(!isFrozen, "Can't modify an NSManagedObjectModel that is in use by a persistent store coordinator.")
    }

    /// Checks the model and computes what stores and objects need: entity numbers, property slots,
    /// table and column names, version hashes. Idempotent.
    func freeze() throws {
        freezeLock.lock()
        defer { freezeLock.unlock() }
        if frozenEntitiesByName != nil { return }
        try ModelValidator.validate(self)
        let ordered = ModelLayoutBuilder.storeOrder(of: entities)
        for (index, entity) in ordered.enumerated() {
            ModelLayoutBuilder.buildLayout(for: entity, number: index + 1)
        }
        ModelLayoutBuilder.assignHierarchyNumbers(ordered)
        for entity in ordered { entity.rootNumber = Int32(entity.layout!.root.layout!.entityNumber) }
        relationalLayout = RelationalLayoutBuilder.layout(of: ordered)
        entitiesInStoreOrder = ordered
        let relationships = ordered.flatMap { $0.layout!.relationships }
        hasJoinTables = relationships.contains { !$0.isTransient && $0.isManyToMany }
        hasOrderedRelationships = relationships.contains { $0.isOrdered }
        hasDerivedAttributes = ordered.contains { $0.declaredProperties.contains { $0 is NSDerivedAttributeDescription } }
        hasUniquenessConstraints = ordered.contains { !$0.uniquenessConstraints.isEmpty }
        frozenEntitiesByName = Dictionary(
            entities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }

    override open var description: String {
        "(NSManagedObjectModel) entities: \(entities.compactMap(\.name).sorted())"
    }
}
