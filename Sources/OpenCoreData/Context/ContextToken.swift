/// A context as its objects refer to it: one weak reference shared by all of them.
///
/// `NSManagedObject.managedObjectContext` must turn nil when the context is released (objects do
/// not keep their context alive, as in Core Data). A weak reference in every object made each
/// registration update the context's side table; a strong reference to this token is a plain
/// retain, and the one weak reference inside it still tells a released context.
final class ContextToken {
    weak var context: NSManagedObjectContext?
    /// The context's objects, by identity. Here rather than in the context, so that an object
    /// that outlives its context (or a reset) takes itself out of the registry it was in, never
    /// one made since.
    let registry = ObjectRegistry()
    /// Whether the context has an undo manager: every change asks, and most contexts have none,
    /// so the answer is kept here rather than behind the weak reference.
    @exclusivity(unchecked) var hasUndoManager = false
    /// `NSManagedObjectContext.concurrencyDebug`, read once: every property access asks, and
    /// reading a lazily initialized static costs a call each time.
    let checksQueue = NSManagedObjectContext.concurrencyDebug

    /// Set when the context is reset or released: the identities of its coordinator's stores, by
    /// address, so that an object that outlives its context makes its ID without reading its
    /// store, which may be gone by then (`NSManagedObject.objectID`). The identities keep their
    /// stores, as every `NSManagedObjectID` does, until a store leaves its coordinator.
    @exclusivity(unchecked) private(set) var retiredIdentities: [UnsafeRawPointer: StoreIdentity]?

    /// The stores of this token's objects' rows, numbered from 1 in the order they were met
    /// (`storeNumber(of:)`): an object keeps its store's number in its bookkeeping word rather
    /// than a field of its own (`NSManagedObject+RowBookkeeping.swift`). Not retained, as an
    /// object's store is not (`NSManagedObject.storeReference`). Written on the context's queue
    /// only, before any object carries the new number; read by objects on any thread.
    private let numberedStores = UnsafeMutablePointer<Unmanaged<NSPersistentStore>>.allocate(capacity: ContextToken.storeNumbers)
    @exclusivity(unchecked) private var numberedCount = 0
    /// Numbers 1 to 63 fit the six bits an object's word has for them; a context meeting more
    /// stores than that keeps the others' references in objects' records.
    static var storeNumbers: Int { 63 }

    init(_ context: NSManagedObjectContext) { self.context = context }

    deinit { numberedStores.deallocate() }

    /// The number of `store` among this token's stores, given it if new; 0 when all numbers
    /// are taken.
    ///
    /// - Parameter store: The store of an object's row.
    /// - Returns: The store's number, 1 to `storeNumbers`, or 0.
    /// - Complexity: O(*s*) for the *s* stores numbered so far (one, nearly always).
    func storeNumber(of store: Unmanaged<NSPersistentStore>) -> Int {
        let address = store.toOpaque()
        for index in 0..<numberedCount where numberedStores[index].toOpaque() == address { return index + 1 }
        guard numberedCount < Self.storeNumbers else { return 0 }
        numberedStores[numberedCount] = store
        numberedCount += 1
        return numberedCount
    }

    /// The store numbered `number` by `storeNumber(of:)`.
    ///
    /// - Parameter number: A number `storeNumber(of:)` returned, not 0.
    /// - Returns: The store, unretained.
    @inline(__always)
    func numberedStore(_ number: Int) -> Unmanaged<NSPersistentStore> { numberedStores[number - 1] }

    /// The context no longer stands behind this token's objects: they keep what makes their IDs.
    ///
    /// - Parameter coordinator: The context's coordinator, while the context still holds it.
    /// - Complexity: O(s) for s stores the coordinator ever held.
    func retire(_ coordinator: NSPersistentStoreCoordinator?) {
        retiredIdentities = coordinator?.storeIdentitiesByAddress ?? [:]
        // Objects the registry held (`retainsRegisteredObjects`) would hold it, through this
        // token, for ever.
        registry.retainsObjects = false
    }
}
