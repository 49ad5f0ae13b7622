/// A custom store's reference objects and the object IDs made from them: the same ID every time
/// for the same reference of an entity hierarchy, and the reference back from the ID.
final class ReferenceObjects: Sendable {
    private let table = Locked(ReferenceTable())

    /// The ID of the object kept under `reference`.
    func objectID(for entity: NSEntityDescription, reference: Any, store: NSPersistentStore) -> NSManagedObjectID {
        let root = entity.rootNumber
        let key = table.withLock { $0.key(for: reference, root: root) }
        return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
    }

    /// The reference `objectID` was made from; nil for an ID not made here.
    func reference(for objectID: NSManagedObjectID) -> Any? {
        let (key, root) = (objectID.primaryKey, objectID.entity.rootNumber)
        return table.withLock { $0.reference(for: key, root: root) }
    }
}

/// The keys of a store's reference objects, per entity hierarchy.
private struct ReferenceTable {
    private var keys: [Int32: [AnyHashable: Int64]] = [:]
    private var references: [Int32: [Int64: Any]] = [:]
    private var lastKey: [Int32: Int64] = [:]

    /// The key of `reference` in the hierarchy `root`, made on first use.
    mutating func key(for reference: Any, root: Int32) -> Int64 {
        let hashable = Self.normalized(reference)
        if let hashable, let key = keys[root]?[hashable] { return key }
        let key = (lastKey[root] ?? 0) + 1
        lastKey[root] = key
        if let hashable { keys[root, default: [:]][hashable] = key }
        references[root, default: [:]][key] = reference
        return key
    }

    func reference(for key: Int64, root: Int32) -> Any? { references[root]?[key] }

    /// Numbers compare by value whatever their type (`5`, `Int64(5)`, `NSNumber(5)`), strings by
    /// their characters; other hashable values as they are; anything else never equals another.
    private static func normalized(_ reference: Any) -> AnyHashable? {
        switch reference {
        case let value as Int: AnyHashable(Int64(value))
        case let value as Int64: AnyHashable(value)
        case let value as Int32: AnyHashable(Int64(value))
        case let value as NSNumber: AnyHashable(value.int64Value)
        case let value as String: AnyHashable(value)
        case let value as NSString: AnyHashable(value as String)
        case let value as AnyHashable: value
        default: nil
        }
    }
}
