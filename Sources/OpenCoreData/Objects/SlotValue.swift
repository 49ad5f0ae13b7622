/// One property value as an object or a row snapshot holds it: a small enum instead of `Any`, so a
/// million objects cost little more than their data (architecture notes, "Objects, fast").
package enum SlotValue {
    /// Not loaded yet: a to-many relationship that has not been read from the store.
    case unloaded
    case null
    case int(Int64)
    case bool(Bool)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case decimal(Decimal)
    case url(URL)
    /// A transformable value or anything else without a dedicated case.
    case object(AnyBox)
    /// A to-one relationship as the store knows it: the destination's entity number and key.
    case reference(ObjectReference)
    /// A to-one relationship resolved to an object of the same context.
    case toOne(NSManagedObject)
    /// A to-many relationship's objects.
    case toMany(RelationshipSet)
    /// A to-one relationship handed over from another context, by ID.
    case objectID(NSManagedObjectID)
    /// A to-many relationship handed over from another context, by IDs.
    case objectIDs(ObjectIDList)
    /// A value of the wrong type, kept so that save can refuse it with a clear error.
    case invalid(AnyBox)

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A to-one destination as stored: its concrete entity number and primary key.
package struct ObjectReference: Hashable, Sendable {
    package var entityNumber: Int32
    package var primaryKey: Int64

    package init(entityNumber: Int32, primaryKey: Int64) {
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
    }
}

/// The IDs of a to-many relationship's objects, boxed so that `SlotValue` stays small.
package final class ObjectIDList {
    let ids: [NSManagedObjectID]
    init(_ ids: [NSManagedObjectID]) { self.ids = ids }
}

/// Boxes an `Any` so that `SlotValue` stays small.
package final class AnyBox {
    package let value: Any
    package init(_ value: Any) { self.value = value }
}

/// The objects of a to-many relationship, in insertion order (the order of an ordered relationship).
package final class RelationshipSet {
    var objects: [NSManagedObject]
    private var members: Set<ObjectIdentifier>

    init(_ objects: [NSManagedObject] = []) {
        self.objects = []
        self.members = []
        for object in objects { insert(object) }
    }

    func contains(_ object: NSManagedObject) -> Bool { members.contains(ObjectIdentifier(object)) }

    @discardableResult
    func insert(_ object: NSManagedObject) -> Bool {
        guard members.insert(ObjectIdentifier(object)).inserted else { return false }
        objects.append(object)
        return true
    }

    @discardableResult
    func remove(_ object: NSManagedObject) -> Bool {
        guard members.remove(ObjectIdentifier(object)) != nil else { return false }
        objects.removeAll { $0 === object }
        return true
    }

    func copy() -> RelationshipSet { RelationshipSet(objects) }
}
