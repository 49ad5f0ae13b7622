/// A compact, universal identifier for a managed object: its entity, its store and its primary key.
///
/// IDs are immutable and `Sendable`: hand them between contexts and threads, never the objects.
/// An unsaved object has a temporary ID until it is saved or `obtainPermanentIDs(for:)` is called.
public final class NSManagedObjectID: NSObject, NSCopying, NSFetchRequestResult, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let`; the entity and store are themselves
    // immutable once in use.

    /// The entity of the object.
    public let entity: NSEntityDescription
    /// The store that holds the object; nil while the ID is temporary, or once the store is gone.
    public var persistentStore: NSPersistentStore? { storeIdentity?.store }
    /// Z_PK for a permanent ID; 0 for a temporary one.
    package let primaryKey: Int64
    /// The store's token for a permanent ID, the boxed UUID for a temporary one. One field holds
    /// either, and the hierarchy's root number is read from the entity, so that an ID is 40
    /// bytes, a 48-byte allocation (a million IDs are a million of them).
    private let owner: Owner

    private enum Owner {
        /// The store, through a token the store shares with all its IDs: a weak reference per ID
        /// cost a side-table update per ID made and slowed every retain of the store.
        case store(StoreIdentity)
        /// Distinguishes temporary IDs, which have no primary key yet.
        case temporary(TemporaryIdentifier)
    }

    private var storeIdentity: StoreIdentity? {
        if case .store(let identity) = owner { return identity }
        return nil
    }

    private var temporaryIdentifier: TemporaryIdentifier? {
        if case .temporary(let identifier) = owner { return identifier }
        return nil
    }

    /// The entity number of the entity's hierarchy root: hashing and comparing IDs read it.
    private var root: Int32 { entity.rootNumber }

    /// The identifier of a temporary ID (the UUID its URI names); nil for a permanent one.
    package var temporaryUUID: UUID? { temporaryIdentifier?.uuid }

    /// The identifier of the store a permanent ID's row is in, also after the store left its
    /// coordinator (its URI keeps naming it); nil for a temporary ID.
    package var storeIdentifier: String? { storeIdentity?.storeIdentifier }

    /// The store a permanent ID's row is in, as an identity to compare without a lock (IDs of
    /// one store share it); nil for a temporary ID.
    package var storeToken: ObjectIdentifier? { storeIdentity?.storeID }

    /// Whether the object has never been saved and has no permanent ID yet.
    public var isTemporaryID: Bool {
        if case .temporary = owner { return true }
        return false
    }

    package convenience init(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) {
        self.init(entity: entity, storeIdentity: store.identity, primaryKey: primaryKey)
    }

    /// An ID for a row of a store whose identity token the caller looked up once for many rows.
    init(entity: NSEntityDescription, storeIdentity: StoreIdentity, primaryKey: Int64) {
        self.entity = entity
        self.owner = .store(storeIdentity)
        self.primaryKey = primaryKey
        super.init()
    }

    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.owner = .temporary(TemporaryIdentifier())
        self.primaryKey = 0
        super.init()
    }

    /// The key the registries use: store, hierarchy and primary key.
    var key: ObjectKey {
        ObjectKey(
            store: storeIdentity?.storeID, root: root, primaryKey: primaryKey,
            temporaryIdentifier: temporaryIdentifier)
    }

    /// A URI that names the object: `x-coredata://<store UUID>/<Entity>/p<pk>` for saved objects,
    /// `x-coredata:///<Entity>/t<UUID>` for temporary ones.
    ///
    /// - Returns: The URI of this ID. A temporary ID's URI stops naming the object once it is saved.
    public func uriRepresentation() -> URL {
        let name = entity.name ?? ""
        if let temporaryIdentifier {
            return URL(string: "x-coredata:///\(name)/t\(temporaryIdentifier.uuid.uuidString)")!
        }
        let storeID = storeIdentity?.storeIdentifier ?? ""
        return URL(string: "x-coredata://\(storeID)/\(name)/p\(primaryKey)")!
    }

    /// Equal to `other.key == key`, comparing the cheap fields first: sets of IDs (the save
    /// notifications') call this on every probe that lands on another ID.
    ///
    /// - Parameter object: The value to compare with.
    /// - Returns: `true` when `object` is an `NSManagedObjectID` for the same store, entity
    ///   hierarchy and primary key, or the same temporary identifier; `false` otherwise.
    override public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        if other === self { return true }
        guard primaryKey == other.primaryKey, root == other.root,
            temporaryIdentifier?.uuid == other.temporaryIdentifier?.uuid
        else { return false }
        return storeIdentity === other.storeIdentity
    }

    /// The primary key and hierarchy, or the temporary identifier, as `ObjectKey` hashes them;
    /// not a hash of the key itself, since Swift's sets and dictionaries hash this value again.
    override public var hash: Int {
        if let temporaryIdentifier { return temporaryIdentifier.uuid.hashValue }
        return Int(truncatingIfNeeded: primaryKey) &* 31 &+ Int(root)
    }

    /// Returns the ID itself: an ID is immutable, so a copy would be indistinguishable.
    ///
    /// - Parameter zone: Ignored; kept for `NSCopying`.
    /// - Returns: This same instance.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    override public var description: String { "<\(uriRepresentation().absoluteString)>" }
}

/// The identity of an object inside a coordinator: what registries and row caches are keyed by.
///
/// 32 bytes: a context's registry holds one per object, so a million fetched objects cost
/// 40 bytes a bucket rather than the 56 that an optional store and an inline optional UUID took.
struct ObjectKey: Hashable, Sendable {
    /// The store's `ObjectIdentifier` as bits; 0 for none.
    private var storeBits: UInt
    var root: Int32
    var primaryKey: Int64
    private var temporaryIdentifier: TemporaryIdentifier?

    init(store: ObjectIdentifier?, root: Int32, primaryKey: Int64, temporary: UUID?) {
        self.init(
            store: store, root: root, primaryKey: primaryKey, temporaryIdentifier: temporary.map(TemporaryIdentifier.init))
    }

    init(store: ObjectIdentifier?, root: Int32, primaryKey: Int64, temporaryIdentifier: TemporaryIdentifier?) {
        // An object's address is never 0, so 0 can stand for "no store".
        self.storeBits = store.map { unsafeBitCast($0, to: UInt.self) } ?? 0
        self.root = root
        self.primaryKey = primaryKey
        self.temporaryIdentifier = temporaryIdentifier
    }

    var store: ObjectIdentifier? { storeBits == 0 ? nil : unsafeBitCast(storeBits, to: ObjectIdentifier.self) }
    var temporary: UUID? { temporaryIdentifier?.uuid }

    static func == (a: ObjectKey, b: ObjectKey) -> Bool {
        a.storeBits == b.storeBits && a.root == b.root && a.primaryKey == b.primaryKey
            && a.temporaryIdentifier?.uuid == b.temporaryIdentifier?.uuid
    }

    /// The key or the temporary identifier only: the store rarely tells keys apart, and hashing
    /// fewer fields makes registering and the save notifications' sets cheaper.
    func hash(into hasher: inout Hasher) {
        if let temporaryIdentifier {
            hasher.combine(temporaryIdentifier.uuid)
        } else {
            hasher.combine(primaryKey)
            hasher.combine(root)
        }
    }
}

/// The UUID of a temporary object ID, boxed so that keys and IDs stay small for the saved objects
/// that never have one.
final class TemporaryIdentifier: Sendable {
    let uuid: UUID
    init(_ uuid: UUID = UUID()) { self.uuid = uuid }
}

/// A store's identity as its object IDs hold it: the store's `ObjectIdentifier`, fixed for the
/// store's life, and the store itself until it leaves its coordinator.
///
/// IDs reached the store through a weak reference each, which made every ID update the store's
/// side table and every retain of the store take the runtime's slow path. The token holds the
/// store strongly instead; the coordinator breaks that cycle (`detach()`) when the store is
/// removed, fails to load, or the coordinator goes.
final class StoreIdentity: Sendable {
    let storeID: ObjectIdentifier
    /// The store while it is in its coordinator; after, the identifier it had, which the IDs'
    /// URIs keep naming, as Core Data's do.
    private let current: Locked<(store: NSPersistentStore?, identifier: String?)>

    init(_ store: NSPersistentStore) {
        self.storeID = ObjectIdentifier(store)
        self.current = Locked((store, nil))
    }

    /// The store, or nil once it left its coordinator.
    var store: NSPersistentStore? { current.withLock { $0.store } }

    /// The store's identifier, also after it left its coordinator.
    var storeIdentifier: String? { current.withLock { $0.store?.identifier ?? $0.identifier } }

    func detach() { current.withLock { $0 = (nil, $0.store?.identifier ?? $0.identifier) } }
}
