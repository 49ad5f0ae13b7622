
/// An entity: the description of one kind of managed object, its properties and its place in an
/// inheritance hierarchy.
///
/// Editable until its model is used by a coordinator, immutable and thread-safe afterwards.
open class NSEntityDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: stored properties are written before the model is frozen (checked by
    // `assertMutable`) and only read afterwards; `layout` is set once, inside the freeze.

    /// The model that holds this entity.
    public internal(set) unowned(unsafe) var managedObjectModel: NSManagedObjectModel!

    /// The entity's name, unique in its model.
    open var name: String? { willSet { assertMutable() } }
    /// The name of the `NSManagedObject` subclass that represents the entity.
    open var managedObjectClassName: String! = "NSManagedObject" { willSet { assertMutable() } }
    /// An abstract entity has no instances of its own, only of its subentities.
    open var isAbstract: Bool = false { willSet { assertMutable() } }
    /// Free-form information attached to the entity in the model.
    open var userInfo: [AnyHashable: Any]? { willSet { assertMutable() } }
    /// A string mixed into the version hash to force a new version without a schema change.
    open var versionHashModifier: String? { willSet { assertMutable() } }
    /// The old name of a renamed entity, for lightweight migration.
    open var renamingIdentifier: String? { willSet { assertMutable() } }
    /// The fetch indexes the store creates for this entity.
    open var indexes: [NSFetchIndexDescription] = [] {
        willSet { assertMutable() }
        didSet { for index in indexes { index.entity = self } }
    }
    /// Groups of property names whose values must be unique together among the entity's objects.
    /// Each element is an array of names (`String`) or of property descriptions.
    open var uniquenessConstraints: [[Any]] = [] { willSet { assertMutable() } }

    /// The entity this one inherits from.
    open internal(set) unowned(unsafe) var superentity: NSEntityDescription?

    /// The entities that inherit from this one. Setting them makes this entity their superentity.
    open var subentities: [NSEntityDescription] = [] {
        willSet { assertMutable() }
        didSet {
            // A set, not a search of the new list per old entity: adding subentities one at a
            // time would otherwise be cubic in their number.
            let kept = Set(subentities.map(ObjectIdentifier.init))
            for old in oldValue where !kept.contains(ObjectIdentifier(old)) { old.superentity = nil }
            for sub in subentities { sub.superentity = self }
        }
    }

    /// The properties this entity declares itself, without inherited ones.
    private var ownProperties: [NSPropertyDescription] = []

    /// The entity's properties: inherited ones first, then its own. Setting it replaces the
    /// entity's own properties.
    open var properties: [NSPropertyDescription] {
        get {
            if let layout { return layout.properties }
            // Gathered in one pass from the root down: asking the superentity recursively copied
            // the list once per level, cubic in a deep hierarchy. The walk stops at the depth limit
            // so that a cycle built in code ends (the model validator refuses both).
            var chain: [NSEntityDescription] = [self]
            while let parent = chain.last!.superentity, chain.count <= ModelLimits.maximumHierarchyDepth {
                chain.append(parent)
            }
            var all: [NSPropertyDescription] = []
            for entity in chain.reversed() { all += entity.ownProperties }
            return all
        }
        set {
            assertMutable()
            ownProperties = newValue
            for property in newValue { property.entity = self }
        }
    }

    /// The properties declared by this entity itself.
    package var declaredProperties: [NSPropertyDescription] { ownProperties }

    /// Every property by name, inherited ones included.
    open var propertiesByName: [String: NSPropertyDescription] {
        if let layout { return layout.propertiesByName }
        return Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Every attribute by name, inherited ones included.
    open var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// Every relationship by name, inherited ones included.
    open var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The subentities by name.
    open var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(subentities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The relationships of this entity whose destination is `entity`.
    ///
    /// - Parameter entity: The destination entity to look for. Only relationships whose destination
    ///   is exactly this entity count, not those to its superentity or subentities.
    /// - Returns: The matching relationships, inherited ones included, in property order; empty when
    ///   there are none.
    open func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        relationshipList.filter { $0.destinationEntity === entity }
    }

    /// Whether this entity is `entity` or inherits from it.
    ///
    /// - Parameter entity: The possible ancestor.
    /// - Returns: `true` when `entity` is this entity or one of its superentities, at any depth.
    open func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let e = current {
            if e === entity { return true }
            current = e.superentity
        }
        return false
    }

    /// The entity and its superentities, the root first: the order in which Core Data lists an
    /// entity's inherited properties before its own.
    var inheritanceChain: [NSEntityDescription] {
        var chain: [NSEntityDescription] = []
        var current: NSEntityDescription? = self
        while let level = current {
            chain.append(level)
            current = level.superentity
        }
        return chain.reversed()
    }

    /// The SHA-256 hash Core Data stores in `NSStoreModelVersionHashes` to recognise this entity's
    /// version; bit-exact with Apple's.
    open var versionHash: Data { layout?.versionHash ?? VersionHasher.hash(of: self) }

    /// Creates an empty entity, with no name and no properties, to be configured before its model
    /// is used by a coordinator.
    override public init() { super.init() }

    /// The entity named `entityName` in the model of `context`'s coordinator.
    ///
    /// - Parameters:
    ///   - entityName: The name of the entity to find.
    ///   - context: The context whose persistent store coordinator's model is searched.
    /// - Returns: The entity, or `nil` when the model has none of that name or the context has no
    ///   coordinator.
    open class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }

    /// Creates, configures and inserts a new object of the named entity into `context`.
    ///
    /// Stops the program, as Core Data does, if the context's model has no such entity.
    ///
    /// - Parameters:
    ///   - entityName: The name of the entity of the new object.
    ///   - context: The context to insert the object into; its coordinator's model holds the entity.
    /// - Returns: The new object, an instance of the entity's managed object class, already inserted.
    open class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        // Inserting loops ask for one entity over and over: comparing the name with the last one
        // costs less than hashing it into the model's dictionary. The context forgets it when its
        // coordinator changes, so the coordinator and its model (whose references go through
        // side tables, slow to retain) are not asked per object.
        if let (name, entity, type) = context.lastInsertedEntity, name == entityName {
            return type.init(_entityClassOf: entity, insertInto: context)
        }
        guard let entity = entity(forEntityName: entityName, in: context) else {
            preconditionFailure("+entityForName: could not locate an entity named '\(entityName)' in this model.")
        }
        let type = entity.managedObjectClass
        context.lastInsertedEntity = (entityName, entity, type)
        return type.init(_entityClassOf: entity, insertInto: context)
    }

    /// The relationships, inherited ones included, in property order: the frozen layout's list,
    /// without a cast per property (deleting objects walks it per object).
    var relationshipList: [NSRelationshipDescription] {
        layout?.relationships ?? properties.compactMap { $0 as? NSRelationshipDescription }
    }

    /// Derived facts computed once, when the model is frozen (and only read after, so without
    /// dynamic exclusivity checks: hot paths read it per object).
    @exclusivity(unchecked) package var layout: EntityLayout?
    /// The class of the entity's objects when a layer above Core Data decides it (OpenSwiftData
    /// backs each model object with an object of its own subclass), whatever
    /// `managedObjectClassName` says: that name stays the model class's, as in Apple's files.
    package var objectClassOverride: NSManagedObject.Type?
    /// `layout`'s root entity's number, set with the layout (0 before): object IDs hash and
    /// compare by it, and one field of the entity is cheaper to read than the layout's chain.
    @exclusivity(unchecked) var rootNumber: Int32 = 0

    func assertMutable() {
        precondition(
            managedObjectModel?.isFrozen != true,
            "Can't modify entity '\(name ?? "?")' of an NSManagedObjectModel that is in use by a coordinator.")
    }

    override open var description: String {
        "(NSEntityDescription) name \(name ?? "nil"), managedObjectClassName \(managedObjectClassName ?? "nil")"
    }
}

/// What the object layer and the stores need to know about an entity, computed once when its model
/// is frozen so that no hot path rebuilds dictionaries.
package final class EntityLayout: @unchecked Sendable {
    // @unchecked Sendable: built once inside `NSManagedObjectModel.freeze()`, never mutated after.
    package let properties: [NSPropertyDescription]
    let propertiesByName: [String: NSPropertyDescription]
    /// Z_ENT: entity number in the store, from Core Data's ordering (docs/sqlite-format.md §2.1).
    package let entityNumber: Int
    package unowned(unsafe) let root: NSEntityDescription
    /// This entity's number and all its descendants' numbers.
    package var hierarchyNumbers: [Int] = []
    let versionHash: Data
    /// The resolved object class, cached after the first lookup (a lookup takes a lock and may
    /// call `NSClassFromString`, too slow to repeat per fetched row).
    let objectClass = Locked<NSManagedObject.Type?>(nil)
    /// Default slots and key names for the object layer's hot paths.
    let objectTemplate: ObjectTemplate
    /// The relationships, and whether any has the deny rule: deleting an object walks these
    /// rather than casting every property, and most entities have no deny rule to check.
    package let relationships: [NSRelationshipDescription]
    let hasDenyRule: Bool

    init(
        properties: [NSPropertyDescription], entityNumber: Int, root: NSEntityDescription,
        versionHash: Data
    ) {
        self.properties = properties
        self.propertiesByName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { _, b in b })
        self.entityNumber = entityNumber
        self.root = root
        self.versionHash = versionHash
        self.objectTemplate = ObjectTemplate(properties: properties)
        self.relationships = properties.compactMap { $0 as? NSRelationshipDescription }
        self.hasDenyRule = relationships.contains { $0.deleteRule == .denyDeleteRule }
    }
}
