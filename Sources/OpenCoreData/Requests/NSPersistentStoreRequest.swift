/// The kinds of request a persistent store executes.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    case fetchRequestType = 1
    case saveRequestType = 2
    case batchInsertRequestType = 5
    case batchUpdateRequestType = 6
    case batchDeleteRequestType = 7
}

/// A request sent to the persistent stores: the base of fetch, save and batch requests.
open class NSPersistentStoreRequest: NSObject {
    /// The stores the request runs against; nil means every store of the coordinator.
    open var affectedStores: [NSPersistentStore]?

    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Creates a request that runs against every store of the coordinator; subclasses call it.
    override public init() { super.init() }
}
