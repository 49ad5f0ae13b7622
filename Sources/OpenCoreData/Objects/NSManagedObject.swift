/// An object of the object graph: an instance of an entity, living in one managed object context.
///
/// Values are read and written with `value(forKey:)` and `setValue(_:forKey:)` (Core Data's KVC),
/// or through typed properties a subclass declares on top of them. A fetched object may be a
/// fault: it holds only its ID until a property is read.
///
/// Not `Sendable`: an object belongs to its context's queue. Pass `objectID` between threads.
open class NSManagedObject: NSObject, NSFetchRequestResult {
    /// The entity of the object.
    public let entity: NSEntityDescription

    /// The context the object lives in; nil once it is deleted and saved, or its context is gone.
    public internal(set) var managedObjectContext: NSManagedObjectContext? {
        get { contextToken?.context }
        set {
            let token = newValue?.token
            // Leaving a context leaves its registry: the registry keeps no reference that would
            // tell it when this object goes.
            if let contextToken, contextToken !== token, let key = keyFromState {
                contextToken.registry.forget(Unmanaged.passUnretained(self).toOpaque(), key: key)
            }
            guard contextToken !== token else { return }
            // Without a context its ID can no longer be made from its store, which may go: it
            // keeps the one made now.
            if token == nil, primaryKey != 0 { keepObjectID() }
            // Its store's number is the old token's: the store moves to a record first.
            moveStoreToRecord()
            contextToken = token
        }
    }

    // The state below is marked `@exclusivity(unchecked)`: an object is confined to its context's
    // queue, and the runtime's dynamic exclusivity checks on these fields cost about a sixth of
    // a million-row fetch (docs/performance.md).

    /// The context, through the token it shares with all its objects: a weak reference per
    /// object cost a side-table update per object registered.
    @exclusivity(unchecked) var contextToken: ContextToken?
    /// The object's values, one slot per property of the entity (`NSPropertyDescription.slot`).
    /// Written only through `slots`, which first gives the committed values a copy of their own
    /// when they are these (`NSManagedObject+RowBookkeeping.swift`).
    @exclusivity(unchecked) var slotValues: SlotRow
    // Declared right after `slotValues`, so that they sit in its two bytes of tail padding.
    @exclusivity(unchecked) var faultState: FaultState = .fresh
    @exclusivity(unchecked) var flags: Flags = []
    /// The object's row key, version, store and committed values, in one word while they are
    /// what a fetched or saved object has, else through a record only other objects allocate
    /// (`NSManagedObject+RowBookkeeping.swift`). Fields of their own for the committed values,
    /// version, key, store, batch and ID made every object a 112-byte allocation; this makes it 64.
    @exclusivity(unchecked) var rowBookkeeping: UInt64 = 0
    /// A fault's values fetched with its row: the fault fills from these without touching the
    /// store. They are the fault's `slots` (a fault has no other values), which saves a field.
    var cachedRow: SlotRow? {
        get { hasCachedRow ? slotValues : nil }
        set { slots = newValue ?? SlotRow() }
    }
    /// Whether the object is a fault carrying its values (`cachedRow`), asked without copying
    /// the row out (a retain and a release).
    var hasCachedRow: Bool { faultState == .fault && !slotValues.isEmpty }
    /// The store of the object's row, for a context the object belongs to (see `storeReference`).
    var store: NSPersistentStore? { storeReference?.takeUnretainedValue() }
    /// The temporary ID, while the object has no primary key.
    var temporaryID: NSManagedObjectID? {
        get { primaryKey == 0 ? knownID : nil }
        set { knownID = newValue }
    }

    /// `fresh`: created by the user, default values not applied yet (they are applied on first
    /// access, so materializing a fetched object costs no slot array). `awaitingAwake`: given its
    /// values by a fetch whose read is still going, `awakeFromFetch` owed; not a fault, and its
    /// first use, or the fetch's end, runs `awakeFromFetch` (`fireFault()`).
    enum FaultState { case filled, fault, fresh, awaitingAwake }

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let inserted = Flags(rawValue: 1)
        static let updated = Flags(rawValue: 2)
        static let deleted = Flags(rawValue: 4)
        /// Listed by the context's next objects-did-change notification as updated: an object is
        /// listed once an event however often it changes.
        static let changedInEvent = Flags(rawValue: 8)
        /// Listed by the context's next objects-did-change notification as inserted: not yet told.
        static let insertedInEvent = Flags(rawValue: 16)
        /// A save is validating the object's held values (`validateAllProperties()`): the base
        /// `validateValue(_:forKey:)` checks the value held for the key, which is the one it was
        /// given, without converting that back from `Any`.
        static let validatingHeldValues = Flags(rawValue: 32)
    }

    /// Creates an object of `entity` and inserts it into `context` (pass nil to insert later with
    /// `context.insert(_:)`).
    ///
    /// - Parameters:
    ///   - entity: The entity the new object is an instance of; it decides the object's properties.
    ///   - context: The context to insert the object into right away, or `nil` to leave it unattached.
    public init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        // Not `required`, as in Core Data: a subclass overrides it with `override` alone. The
        // framework creates objects of an entity's class through
        // `init(_entityClassOf:insertInto:)`, which is.
        // The context is not `__shared`, though lending it would save a retain and release
        // through its side table: Swift 6.3's thunk for an override that takes it owned, as
        // subclasses write it, releases it once too often (a debug build crashes).
        self.entity = entity
        self.slotValues = SlotRow()
        super.init()
        // Not `if let`: binding the context copies it, a retain and release through its side table.
        context?.insert(self)
    }

    /// Creates an object of `entity` through its class's `init(entity:insertInto:)`, for code
    /// that holds the class as a metatype (fetches, `insertNewObject(forEntityName:into:)`).
    /// Apps call `init(entity:insertInto:)` instead.
    ///
    /// `required` so that every subclass has it: a subclass that declares no designated
    /// initializer, or overrides `init(entity:insertInto:)`, inherits it. The context is taken
    /// owned, as an override would write it (see `init(entity:insertInto:)`).
    ///
    /// - Parameters:
    ///   - entity: The entity the new object is an instance of.
    ///   - context: The context to insert the object into, or `nil`.
    public required convenience init(_entityClassOf entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        self.init(entity: entity, insertInto: context)
    }

    /// Creates an object of the entity that has this class, and inserts it into `context`.
    ///
    /// The entity is the one of the context's model whose `managedObjectClassName` names this
    /// class (with or without module prefix), or the one registered with
    /// `NSManagedObjectModel.registerClass(_:forEntityName:)`.
    /// Stops the program when no entity of that model has this class.
    ///
    /// - Parameter context: The context to insert the object into; the entity is looked up in the
    ///   model of its persistent store coordinator.
    public convenience init(context: __shared NSManagedObjectContext) {
        // `__shared`: the caller lends the context instead of handing over a retained reference.
        // Its objects' token refers to it weakly, which gives it a side table, so each retain and
        // release of it takes the runtime's slow path. Safe here: a convenience initializer is
        // not overridden.
        // Inserting loops create one class over and over: the context remembers its entity, so
        // the coordinator and model (side-table references) and the model's locked class table
        // are not asked per object.
        if let (type, entity) = context.lastInsertedClass, type == ObjectIdentifier(Self.self) {
            self.init(entity: entity, insertInto: context)
            return
        }
        guard let model = context.persistentStoreCoordinator?.managedObjectModel,
            let entity = model.entity(for: Self.self)
        else {
            preconditionFailure(
                "No entity of the context's model has class '\(String(reflecting: Self.self))': set its managedObjectClassName or register the class.")
        }
        // Only an entity of a model in use: until then the class's registration may change.
        if model.isFrozen { context.lastInsertedClass = (ObjectIdentifier(Self.self), entity) }
        self.init(entity: entity, insertInto: context)
    }

    /// Creates a fault or filled object for a row; used by fetches, never by users.
    /// `objectClass` is the entity's `managedObjectClass`, for callers that looked it up once for
    /// many rows (the lookup takes a lock). `entity` is consumed: the caller's reference becomes
    /// the object's, saving an atomic retain and release per fetched row.
    /// The object joins `token`'s context first: its store is numbered among the token's.
    /// Store and token come unretained (the caller keeps them alive): passed as references, each
    /// cost a retain and a release per fetched row.
    static func materialize(
        entity: consuming NSEntityDescription, store: Unmanaged<NSPersistentStore>?, primaryKey: Int64, version: Int64 = 0,
        objectClass: NSManagedObject.Type? = nil, token: Unmanaged<ContextToken>
    ) -> NSManagedObject {
        let object = (objectClass ?? entity.managedObjectClass).init(_entityClassOf: entity, insertInto: nil)
        object.contextToken = token.takeUnretainedValue()
        if let store { object.setRow(storeReference: store, primaryKey: primaryKey, version: version) }
        object.faultState = .fault
        return object
    }

    /// The entity description of this class in the default model; Core Data's generated code calls
    /// it. On Linux it finds the entity through the models coordinators have loaded.
    ///
    /// - Returns: The entity whose managed object class is this class. The program stops when no
    ///   loaded model has one.
    open class func entity() -> NSEntityDescription {
        guard let entity = NSManagedObjectModel.entityForClass(self) else {
            preconditionFailure("No loaded model has an entity whose class is '\(String(reflecting: self))'.")
        }
        return entity
    }

    /// A fetch request for this class's entity.
    ///
    /// - Returns: A new request whose `entity` is `entity()`, with no predicate or sort descriptors.
    open class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = entity()
        return request
    }

    // MARK: Identity and state

    /// Identity-based, as `NSObject`'s, which runs Swift's hasher over the object's address:
    /// sets and dictionaries of objects (the change notifications') hash this value again, so
    /// the address itself serves. Core Data's documentation forbids overriding it.
    override public var hash: Int { Int(bitPattern: UInt(bitPattern: ObjectIdentifier(self))) }

    /// The object's ID: temporary until the object is saved, permanent afterwards.
    public var objectID: NSManagedObjectID {
        if primaryKey != 0, let storeReference {
            if let knownID, !knownID.isTemporaryID { return knownID }
            let id: NSManagedObjectID
            if let identities = contextToken?.retiredIdentities {
                // The context is gone or was reset: its store may be too.
                guard let identity = identities[UnsafeRawPointer(storeReference.toOpaque())] else {
                    preconditionFailure("The object \(entity.name ?? "?") \(primaryKey) outlived its context without an identity for its store.")
                }
                id = NSManagedObjectID(entity: entity, storeIdentity: identity, primaryKey: primaryKey)
            } else {
                id = NSManagedObjectID(entity: entity, store: storeReference.takeUnretainedValue(), primaryKey: primaryKey)
            }
            // Kept only by an object that has a bookkeeping record already: a record for the
            // ID alone would cost every fetched object whose ID is asked for an allocation.
            rememberPermanentID(id)
            return id
        }
        if let knownID { return knownID }
        let id = NSManagedObjectID(temporaryFor: entity)
        knownID = id
        managedObjectContext?.registerTemporary(self)
        return id
    }

    /// Gives the object its permanent identity after its row was written or its key reserved.
    func assignPermanentID(store: NSPersistentStore, primaryKey: Int64) {
        setRow(store: store, primaryKey: primaryKey, version: version)
        // A permanent ID made before is of another key; a temporary one is read by the caller.
        forgetPermanentID()
    }

    var hasTemporaryID: Bool { primaryKey == 0 }

    /// `objectID.key`, without creating the ID of a saved object (a save registers a million
    /// objects without allocating a million IDs nobody asked for).
    var registryKey: ObjectKey { keyFromState ?? objectID.key }

    /// The key the object is registered under, read from its own state without making an ID or
    /// reading its store (which may be gone): its permanent key once it has one, else its
    /// temporary ID's; nil for an object that never had an ID, which is not registered.
    var keyFromState: ObjectKey? {
        guard primaryKey != 0, let storeReference else { return knownID?.key }
        return ObjectKey(
            store: unsafeBitCast(storeReference.toOpaque(), to: ObjectIdentifier.self),
            root: entity.rootNumber, primaryKey: primaryKey, temporary: nil)
    }

    deinit {
        // Core Data's registry holds objects weakly: the last reference going takes the object
        // out of its context's registry (`ObjectRegistry`), on whichever thread that is.
        // The token borrowed, not retained: the object holds it until its fields go, after
        // this, and a retain and release of it and of its registry cost four atomic operations
        // an object let go of.
        if let token = contextToken.map(Unmanaged.passUnretained), let key = keyFromState {
            let object = Unmanaged.passUnretained(self).toOpaque()
            token._withUnsafeGuaranteedRef { $0.registry.forget(object, key: key) }
        }
        releaseBookkeepingRecord()
    }

    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { flags.contains(.inserted) }
    /// Whether the object has unsaved changes to saved values.
    public var isUpdated: Bool { flags.contains(.updated) }
    /// Whether the object will be deleted at the next save.
    public var isDeleted: Bool { flags.contains(.deleted) }
    /// Whether the object is a fault: its values have not been read yet.
    public var isFault: Bool { faultState == .fault }
    /// Whether the object was inserted, updated or deleted since the last save.
    public var hasChanges: Bool { !flags.isDisjoint(with: [.inserted, .updated, .deleted]) }
    /// Whether the object has changes that are persisted (inserted, deleted, or really updated).
    public var hasPersistentChangedValues: Bool { isInserted || isDeleted || !changedValues().isEmpty }

    /// Core Data's fault state: 0 for a filled object, 1 for a fault.
    public var faultingState: Int { isFault ? 1 : 0 }

    // MARK: Lifecycle hooks

    /// Called once, when the object is first inserted into a context. Set initial values here.
    open func awakeFromInsert() {}
    /// Called when a fault is filled with values from the store.
    open func awakeFromFetch() {}
    /// Called before the object's changes are saved.
    open func willSave() {}
    /// Called after the object's changes are saved.
    open func didSave() {}
    /// Called when the object is about to be deleted, before delete rules run.
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault.
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    // MARK: Key-value coding and validation (declared here so subclasses can override them)

    /// The value of the property named `key`, or of a key path through to-one relationships
    /// (`"owner.firstName"`). Numbers come back as `NSNumber`, to-many relationships as
    /// `Set<NSManagedObject>` (`NSOrderedSet` when ordered).
    ///
    /// Stops the program, as Core Data raises, when the entity has no such property.
    ///
    /// - Parameter key: The name of a property of the entity, or a dotted key path.
    /// - Returns: The property's current value, filling the object first if it is a fault; `nil` when
    ///   the value is unset.
    open func value(forKey key: String) -> Any? {
        checkQueue("value(forKey: \"\(key)\")")
        return kvcValue(forKey: key)
    }

    /// The value at a dotted key path through to-one relationships.
    ///
    /// - Parameter keyPath: Property names joined with dots, such as `"owner.address.city"`; every
    ///   part but the last must name a to-one relationship.
    /// - Returns: The value of the last property, or `nil` when a relationship on the way is empty.
    open func value(forKeyPath keyPath: String) -> Any? { kvcValue(forKeyPath: keyPath) }

    /// Sets the property named `key`. Relationships keep their inverse in step; a value of the wrong
    /// type is kept and refused when the context saves (`NSManagedObjectValidationError`).
    ///
    /// Stops the program, as Core Data raises, when the entity has no such property.
    ///
    /// - Parameters:
    ///   - value: The new value, or `nil` to clear the property. For a to-many relationship, a set
    ///     (or ordered set) of managed objects.
    ///   - key: The name of the property to set; it must not be read-only.
    open func setValue(_ value: Any?, forKey key: String) {
        checkQueue("setValue(_:forKey: \"\(key)\")")
        kvcSetValue(value, forKey: key)
    }

    /// Sets the property at the end of a dotted key path: the path's to-one relationships lead to
    /// the object whose property is set, and a composite attribute's element names lead into its
    /// dictionary (`"magnitude.richter"`). As in Core Data, where the message goes to nil, nothing
    /// is set when a relationship on the way is empty; a to-many relationship on the way sets each
    /// of its objects, as a set's `setValue(_:forKeyPath:)` does.
    ///
    /// - Parameters:
    ///   - value: The new value, or `nil` to clear the property.
    ///   - keyPath: Property names joined with dots, such as `"owner.name"`; a path without a dot
    ///     names a property of this object. The program stops, as Core Data raises, when a part
    ///     names no property.
    open func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.firstIndex(of: ".") else { return setValue(value, forKey: keyPath) }
        let key = String(keyPath[..<dot])
        let rest = String(keyPath[keyPath.index(after: dot)...])
        if entity.propertiesByName[key] is NSCompositeAttributeDescription {
            let current = self.value(forKey: key).flatMap(CompositeValue.dictionary) ?? [:]
            let path = rest.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            return setValue(CompositeValue.setting(value, at: path[...], in: current), forKey: key)
        }
        guard let target = self.value(forKey: key) else { return }
        for case let object as NSManagedObject in ManagedValueConversion.objects(target) { object.setValue(value, forKeyPath: rest) }
    }

    /// The stored value of `key` without access notifications.
    ///
    /// - Parameter key: The name of a property of the entity (not a key path).
    /// - Returns: The value held for the property, or `nil` when it is unset.
    open func primitiveValue(forKey key: String) -> Any? {
        checkQueue("primitiveValue(forKey: \"\(key)\")")
        return kvcPrimitiveValue(forKey: key)
    }

    /// Sets the stored value of `key` without change notifications; inverses are not maintained.
    ///
    /// - Parameters:
    ///   - value: The value to store, or `nil` to clear the property.
    ///   - key: The name of a property of the entity (not a key path).
    open func setPrimitiveValue(_ value: Any?, forKey key: String) {
        checkQueue("setPrimitiveValue(_:forKey: \"\(key)\")")
        kvcSetPrimitiveValue(value, forKey: key)
    }

    /// A mutable set that edits the to-many relationship `key` in place, inverses included.
    ///
    /// - Parameter key: The name of a to-many relationship; the program stops for any other property.
    /// - Returns: A live set: adding or removing objects changes the relationship of this object.
    open func mutableSetValue(forKey key: String) -> NSMutableSet { kvcMutableSetValue(forKey: key) }

    /// A mutable ordered set that edits the ordered to-many relationship `key` in place.
    ///
    /// - Parameter key: The name of a to-many relationship; the program stops for any other property.
    /// - Returns: A live ordered set: inserting, removing or moving objects changes the relationship of
    ///   this object.
    open func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet { kvcMutableOrderedSetValue(forKey: key) }

    /// Checks the object before it is inserted: every property against the model's rules.
    /// Override to add checks; call `super` to keep the model's.
    ///
    /// - Throws: the validation error, or `NSValidationMultipleErrorsError` with the list.
    ///   Both are `NSError`s in `NSCocoaErrorDomain`: a single property's error carries a code
    ///   such as `NSValidationMissingMandatoryPropertyError` or `NSManagedObjectValidationError`,
    ///   and the combined one lists them under `NSDetailedErrorsKey`.
    open func validateForInsert() throws { try validateAllProperties() }

    /// Checks the object before its changes are saved.
    ///
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` for the first broken rule of a property
    ///   (for example `NSValidationMissingMandatoryPropertyError`, `NSValidationStringTooLongError`
    ///   or `NSManagedObjectValidationError`), or `NSValidationMultipleErrorsError` listing them
    ///   under `NSDetailedErrorsKey` when several properties fail.
    open func validateForUpdate() throws { try validateAllProperties() }

    /// Checks the object before it is deleted. Deny rules are checked by the context's save.
    ///
    /// - Throws: Nothing in this implementation; an override throws a validation error (an `NSError`
    ///   in `NSCocoaErrorDomain`) to stop the save that would delete the object.
    open func validateForDelete() throws {}

    /// Whether this class may override `validateValue(_:forKey:)`: a save then calls it for every
    /// property of every changed object; when not, it checks the objects against the model's rules
    /// directly. True for every subclass unless it says otherwise. Not meant to be used by hand:
    /// the classes the ManagedObjectCodegen plugin generates ("Class Definition") answer false for
    /// themselves, since all their code is generated, and so do the hand-written classes it lists
    /// as free of overrides (`_ValidateValueNotOverridden`).
    open class var _mayOverrideValidateValue: Bool {
        guard self != NSManagedObject.self else { return false }
        guard let vouched = self as? any _ValidateValueNotOverridden.Type else { return true }
        return !vouched._classesWithoutValidateValueOverride.contains(ObjectIdentifier(self))
    }

    /// Checks one value for `key` against the model's rules. Core Data's signature takes an
    /// `AutoreleasingUnsafeMutablePointer`, which Linux lacks; `inout` lets an override replace the
    /// value the same way.
    ///
    /// - Parameters:
    ///   - value: The value to check, which need not be the one the object holds: an app checks
    ///     a value before setting it, and a save passes each property's current value. This
    ///     implementation checks it against the model's rules for `key` and leaves it alone (while
    ///     a save validates, it checks the value the object holds, which is the one the save
    ///     passed: a value an override puts in its place is not saved either); an override may
    ///     inspect or replace it.
    ///   - key: The name of a property of the entity; the program stops when there is none.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` for the first model rule the value breaks:
    ///   `NSManagedObjectValidationError` (wrong type, or a failed validation predicate),
    ///   `NSValidationMissingMandatoryPropertyError`, `NSValidationNumberTooSmallError` /
    ///   `NSValidationNumberTooLargeError`, `NSValidationDateTooSoonError` /
    ///   `NSValidationDateTooLateError`, `NSValidationStringTooShortError` /
    ///   `NSValidationStringTooLongError`, `NSValidationStringPatternMatchingError`, or
    ///   `NSValidationRelationshipLacksMinimumCountError` /
    ///   `NSValidationRelationshipExceedsMaximumCountError`.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        let property = requireProperty(key)
        let error = flags.contains(.validatingHeldValues) ? modelRuleError(for: property) : modelRuleError(for: property, value: value)
        if let error { throw error }
    }

    /// With concurrency debugging on, stops the program when the object is used off its context's queue.
    @inline(__always)
    func checkQueue(_ call: @autoclosure () -> String) {
        guard let token = contextToken, token.checksQueue, let context = token.context else { return }
        context.assertOnQueue(call(), object: self)
    }

    /// Called before a value changes; a hook for subclasses (no KVO on Linux).
    ///
    /// - Parameter key: The name of the property about to change.
    open func willChangeValue(forKey key: String) {}
    /// Called after a value changed.
    ///
    /// - Parameter key: The name of the property that changed.
    open func didChangeValue(forKey key: String) {}
    /// Called before a value is read.
    ///
    /// - Parameter key: The name of the property about to be read, or `nil` when the access is not
    ///   about one property.
    open func willAccessValue(forKey key: String?) {}
    /// Called after a value was read.
    ///
    /// - Parameter key: The name of the property that was read, or `nil` when the access was not
    ///   about one property.
    open func didAccessValue(forKey key: String?) {}

    override open var description: String {
        let state = isFault ? "<fault>" : "data: {…}"
        return "<\(String(describing: Swift.type(of: self))): \(objectID.uriRepresentation().absoluteString); \(state)>"
    }

    func applyDefaultValues() {
        faultState = .filled
        if let layout = entity.layout {
            // Field by field: binding the whole template would retain and release each of its arrays.
            slots = layout.objectTemplate.defaultSlots
            for slot in layout.objectTemplate.toManySlots { slots[slot] = .toMany(RelationshipSet()) }
            return
        }
        // Before the model is frozen (no layout yet), from the properties themselves.
        let properties = entity.properties
        var values = SlotRow(repeating: .null, count: properties.count)
        for property in properties {
            if let attribute = property as? NSAttributeDescription {
                if let value = attribute.defaultValue {
                    values[slotIndex(of: attribute)] = SlotValue(attributeValue: value, for: attribute)
                }
            } else if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                values[slotIndex(of: relationship)] = .toMany(RelationshipSet())
            }
        }
        slots = values
    }

    /// The slot of `property`, valid before the model is frozen too.
    func slotIndex(of property: NSPropertyDescription) -> Int {
        if property.slot >= 0 { return property.slot }
        return entity.properties.firstIndex { $0 === property }!
    }
}
