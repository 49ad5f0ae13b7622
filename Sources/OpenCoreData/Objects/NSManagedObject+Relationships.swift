/// Relationship values and the inverse maintenance Core Data performs when one side changes.
extension NSManagedObject {
    /// The destination of a to-one relationship, turning a stored reference into an object of the
    /// same context (a fault if it was not registered yet).
    func toOneValue(_ relationship: NSRelationshipDescription) -> NSManagedObject? {
        fireFault()
        switch slots[relationship.slot] {
        case .toOne(let object): return object
        case .reference(let reference):
            guard let context = managedObjectContext, let store else { return nil }
            let object = context.registeredObject(for: reference, in: store)
            slots[relationship.slot] = .toOne(object)
            return object
        case .objectID(let id):
            guard let context = managedObjectContext else { return nil }
            let object = context.object(with: id)
            slots[relationship.slot] = .toOne(object)
            return object
        default: return nil
        }
    }

    /// The objects of a to-many relationship, loading them from the store on first access.
    func toManySet(_ relationship: NSRelationshipDescription) -> RelationshipSet {
        fireFault()
        if case .toMany(let set) = slots[relationship.slot] { return set }
        let objects: [NSManagedObject]
        if case .objectIDs(let list) = slots[relationship.slot], let context = managedObjectContext {
            objects = list.ids.map { context.object(with: $0) }
        } else {
            objects = managedObjectContext?.loadToMany(relationship, of: self) ?? []
        }
        let set = RelationshipSet(objects)
        slots[relationship.slot] = .toMany(set)
        if committed != nil { committed![relationship.slot] = .toMany(set.copy()) }
        return set
    }

    func setToOne(_ relationship: NSRelationshipDescription, _ newValue: NSManagedObject?) {
        let old = toOneValue(relationship)
        guard old !== newValue else { return }
        checkSameContext(newValue, relationship)
        if let inverse = relationship.inverseRelationship {
            old?.primitiveRemove(inverse, self)
            if let newValue {
                if !inverse.isToMany, let previous = newValue.toOneValue(inverse), previous !== self {
                    previous.primitiveRemove(relationship, newValue)
                }
                newValue.primitiveAdd(inverse, self)
            }
        }
        primitiveSetToOne(relationship, newValue)
    }

    func addToMany(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        guard !toManySet(relationship).contains(object) else { return }
        checkSameContext(object, relationship)
        primitiveAdd(relationship, object)
        guard let inverse = relationship.inverseRelationship else { return }
        if inverse.isToMany {
            object.primitiveAdd(inverse, self)
        } else {
            if let previousOwner = object.toOneValue(inverse), previousOwner !== self {
                previousOwner.primitiveRemove(relationship, object)
            }
            object.primitiveSetToOne(inverse, self)
        }
    }

    func removeFromMany(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        guard toManySet(relationship).contains(object) else { return }
        primitiveRemove(relationship, object)
        if let inverse = relationship.inverseRelationship { object.primitiveRemove(inverse, self) }
    }

    /// Adds `object` to this side only (to-many insert or to-one assignment).
    func primitiveAdd(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        if relationship.isToMany {
            let set = toManySet(relationship)
            guard !set.contains(object) else { return }
            registerUndo(of: relationship)
            set.insert(object)
            markChanged()
        } else {
            primitiveSetToOne(relationship, object)
        }
    }

    /// Removes `object` from this side only.
    func primitiveRemove(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        if relationship.isToMany {
            let set = toManySet(relationship)
            guard set.contains(object) else { return }
            registerUndo(of: relationship)
            set.remove(object)
            markChanged()
        } else if toOneValue(relationship) === object {
            primitiveSetToOne(relationship, nil)
        }
    }

    func primitiveSetToOne(_ relationship: NSRelationshipDescription, _ object: NSManagedObject?) {
        fireFault()
        registerUndo(of: relationship)
        slots[relationship.slot] = object.map { .toOne($0) } ?? .null
        markChanged()
    }

    private func checkSameContext(_ object: NSManagedObject?, _ relationship: NSRelationshipDescription) {
        guard let object, let mine = managedObjectContext, let theirs = object.managedObjectContext else { return }
        precondition(
            mine === theirs,
            "Illegal attempt to establish a relationship '\(relationship.name)' between objects in different contexts.")
    }
}

extension NSManagedObject {
    /// Records the current value of `property` with the context's undo manager, so that undo puts
    /// it back (and records the redo the same way).
    func registerUndo(of property: NSPropertyDescription) {
        guard contextToken?.hasUndoManager == true, let undoManager = managedObjectContext?.undoManager,
            undoManager.isUndoRegistrationEnabled
        else { return }
        let old = Self.detached(slots[property.slot])
        undoManager.registerUndo(withTarget: self) { object in
            object.fireFault()
            object.registerUndo(of: property)
            object.slots[property.slot] = Self.detached(old)
            object.markChanged()
        }
    }

    /// A slot value that later edits of the object cannot change (to-many sets are copied).
    private static func detached(_ value: SlotValue) -> SlotValue {
        if case .toMany(let set) = value { return .toMany(set.copy()) }
        return value
    }
}

/// The live set `mutableSetValue(forKey:)` returns: every edit goes through the relationship, so
/// inverses and change tracking follow.
final class RelationshipMutableSet: NSMutableSet {
    private let owner: NSManagedObject
    private let relationship: NSRelationshipDescription

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.owner = owner
        self.relationship = relationship
        super.init(capacity: 0)
    }

    required init(capacity numItems: Int) { fatalError("RelationshipMutableSet is created by mutableSetValue(forKey:)") }
    required init?(coder: NSCoder) { fatalError("RelationshipMutableSet is not decodable") }

    private var objects: [NSManagedObject] { owner.toManySet(relationship).objects }

    override var count: Int { objects.count }
    override func member(_ object: Any) -> Any? {
        guard let object = object as? NSManagedObject, owner.toManySet(relationship).contains(object) else { return nil }
        return object
    }
    override func objectEnumerator() -> NSEnumerator { NSArray(array: objects).objectEnumerator() }
    override var allObjects: [Any] { objects }
    override func add(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.addToMany(relationship, object)
    }
    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromMany(relationship, object)
    }
    override func removeAllObjects() {
        for object in objects { owner.removeFromMany(relationship, object) }
    }
    // Foundation on Linux answers these from its own storage, which a proxy leaves empty.
    override func anyObject() -> Any? { objects.first }
    override func addObjects(from array: [Any]) {
        for object in array { add(object) }
    }
}

/// The live ordered set `mutableOrderedSetValue(forKey:)` returns.
final class RelationshipMutableOrderedSet: NSMutableOrderedSet {
    private let owner: NSManagedObject
    private let relationship: NSRelationshipDescription

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.owner = owner
        self.relationship = relationship
        super.init(capacity: 0)
    }

    override init(capacity numItems: Int) { fatalError("created by mutableOrderedSetValue(forKey:)") }
    required init?(coder aDecoder: NSCoder) { fatalError("not decodable") }
    required convenience init(arrayLiteral elements: Any...) { fatalError("created by mutableOrderedSetValue(forKey:)") }

    private var objects: [NSManagedObject] { owner.toManySet(relationship).objects }

    override var count: Int { objects.count }
    override func object(at idx: Int) -> Any { objects[idx] }
    override func index(of object: Any) -> Int {
        guard let object = object as? NSManagedObject else { return NSNotFound }
        return objects.firstIndex { $0 === object } ?? NSNotFound
    }
    override func insert(_ object: Any, at idx: Int) {
        guard let object = object as? NSManagedObject else { return }
        owner.addToMany(relationship, object)
        reorder { objects in
            if let current = objects.firstIndex(where: { $0 === object }) {
                objects.remove(at: current)
                objects.insert(object, at: Swift.min(idx, objects.count))
            }
        }
    }

    /// Changes the order alone (no member added or removed): undoable, and a change the next
    /// save writes, as a membership change is.
    private func reorder(_ change: (inout [NSManagedObject]) -> Void) {
        let set = owner.toManySet(relationship)
        var objects = set.objects
        change(&objects)
        guard !objects.elementsEqual(set.objects, by: ===) else { return }
        owner.registerUndo(of: relationship)
        set.objects = objects
        owner.markChanged()
    }
    override func removeObject(at idx: Int) {
        owner.removeFromMany(relationship, objects[idx])
    }
    override func replaceObject(at idx: Int, with object: Any) {
        removeObject(at: idx)
        insert(object, at: idx)
    }
    override func add(_ object: Any) { insert(object, at: count) }

    // Foundation on Linux implements these on its own storage, which a proxy leaves empty: each
    // goes through the primitives above, as Apple's class cluster does. (`array`, `set`,
    // `firstObject` and `lastObject` are not open to subclasses there; `value(forKey:)` hands out
    // a copy that has them.)
    override func contains(_ object: Any) -> Bool {
        guard let object = object as? NSManagedObject else { return false }
        return owner.toManySet(relationship).contains(object)
    }
    override func addObjects(from array: [Any]) {
        for object in array { add(object) }
    }
    override func insert(_ objects: [Any], at indexes: IndexSet) {
        for (object, index) in zip(objects, indexes) { insert(object, at: index) }
    }
    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromMany(relationship, object)
    }
    override func removeObjects(in array: [Any]) {
        for object in array { remove(object) }
    }
    override func removeObjects(at indexes: IndexSet) {
        for object in indexes.map({ objects[$0] }) { owner.removeFromMany(relationship, object) }
    }
    override func removeAllObjects() {
        for object in objects { owner.removeFromMany(relationship, object) }
    }
    override func moveObjects(at indexes: IndexSet, to idx: Int) {
        reorder { objects in
            let moving = indexes.map { objects[$0] }
            objects.removeAll { object in moving.contains { $0 === object } }
            objects.insert(contentsOf: moving, at: Swift.min(idx, objects.count))
        }
    }
    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) {
        reorder { $0.swapAt(idx1, idx2) }
    }
}
