/// The values of one object, as an `NSIncrementalStore` hands them to Core Data when a fault
/// fires: attribute values and to-one destinations (`NSManagedObjectID`s, `NSNull` for none) by
/// property name, and a version for optimistic locking. To-many relationships are not in a node:
/// the store answers `newValue(forRelationship:forObjectWith:with:)` for them.
open class NSIncrementalStoreNode: NSObject {
    /// The object the values belong to.
    open private(set) var objectID: NSManagedObjectID
    /// The version of the values; a save compares it.
    open private(set) var version: UInt64
    private var values: [String: Any]

    /// Creates a node.
    ///
    /// - Parameters:
    ///   - objectID: The object the values belong to.
    ///   - values: Attribute values and to-one destination IDs by property name; a missing key
    ///     or `NSNull` is nil.
    ///   - version: The version of the values.
    public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.values = values
        self.version = version
        super.init()
    }

    /// Replaces the node's values and version.
    ///
    /// - Parameters:
    ///   - values: The new values by property name.
    ///   - version: The new version.
    open func update(withValues values: [String: Any], version: UInt64) {
        self.values = values
        self.version = version
    }

    /// The value of `prop`; nil when the node has none (or holds `NSNull`).
    ///
    /// - Parameter prop: An attribute or to-one relationship of the object's entity.
    /// - Returns: The value, or the destination's `NSManagedObjectID` for a to-one.
    open func value(for prop: NSPropertyDescription) -> Any? {
        let value = values[prop.name]
        return value is NSNull ? nil : value
    }
}
