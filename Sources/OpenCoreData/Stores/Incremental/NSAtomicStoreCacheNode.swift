/// One object of an `NSAtomicStore`, as the store keeps it between `load()` and `save()`: its
/// ID and its values by property name (to-one destinations as cache nodes, to-many ones as sets
/// of cache nodes).
open class NSAtomicStoreCacheNode: NSObject {
    /// The object the node holds.
    public let objectID: NSManagedObjectID
    /// The values by property name; nil until one is set.
    open var propertyCache: NSMutableDictionary?

    /// Creates an empty node for an object.
    ///
    /// - Parameter moid: The object's ID, made by the store's `objectID(for:withReferenceObject:)`.
    public init(objectID moid: NSManagedObjectID) {
        self.objectID = moid
        super.init()
    }

    /// The value of a property.
    ///
    /// - Parameter key: A property name.
    /// - Returns: Its value: an attribute value, a cache node, a set of cache nodes, or nil.
    open func value(forKey key: String) -> Any? {
        let value = propertyCache?[key]
        return value is NSNull ? nil : value
    }

    /// Sets the value of a property.
    ///
    /// - Parameters:
    ///   - value: An attribute value, a cache node (to-one), a set of cache nodes (to-many), or nil.
    ///   - key: A property name.
    open func setValue(_ value: Any?, forKey key: String) {
        if propertyCache == nil { propertyCache = NSMutableDictionary() }
        if let value { propertyCache![key] = value } else { propertyCache!.removeObject(forKey: key) }
    }
}
