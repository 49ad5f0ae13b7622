import CSwiftRetain
import Foundation

/// The objects a context has registered, by identity, held weakly as Core Data's registry holds
/// them: an object nothing else references and with no unsaved change (the context's change
/// lists hold those) leaves the registry as its last reference goes, on whatever thread that is.
///
/// The registry keeps each object's address without retaining it. An object's deinitializer takes
/// it out (`forget(_:key:)`); a lookup retains what it finds only if that object's
/// deinitialization has not begun (`swift_tryRetain`), so an object whose count reached zero is
/// never handed out again. Both happen under one recursive lock: the deinitializer cannot free the
/// object while a lookup reads its count, and an object released while the context's own queue
/// holds the lock (a fetch replacing a registered object's values) deinitializes there.
///
/// Saved objects are found by primary key in pages of consecutive keys: Core Data hands out keys
/// in sequence per entity hierarchy, so they are dense, and registering the objects of a
/// million-row fetch hashes a page number once per 256 objects and costs 8 bytes an object.
/// Temporary IDs go to a dictionary.
///
/// Work that can release objects or run the app's code (replacing values, `awakeFromFetch`)
/// happens outside the lock, so that a deinitializer on another thread never waits on it.
final class ObjectRegistry: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `lock`.

    /// The keys of one entity hierarchy in one store.
    private struct TableID: Hashable {
        var store: ObjectIdentifier
        var root: Int32
    }

    private let lock = NSRecursiveLock()
    @exclusivity(unchecked) private var tables = RememberingDictionary<TableID, PrimaryKeyTable>()
    @exclusivity(unchecked) private var others: [ObjectKey: Unmanaged<NSManagedObject>] = [:]
    /// How many objects are registered.
    @exclusivity(unchecked) private var registered = 0
    /// Every registered object, held, while the context `retainsRegisteredObjects`.
    @exclusivity(unchecked) private var retained: [UnsafeMutableRawPointer: NSManagedObject]?
    // Keyed by address: an object is in `retained` only while alive, so no other takes its address.

    /// Runs `body` holding the registry's lock; the lock is recursive, so the registry's own
    /// methods may be called inside.
    ///
    /// Use it around work with a `PrimaryKeyTable` of this registry, and keep the app's code and
    /// the release of objects out of it.
    /// - Parameter body: The work to do under the lock.
    /// - Returns: What `body` returns.
    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// How many objects are registered.
    var count: Int { withLock { registered } }

    /// Whether the registry holds its objects as well (`retainsRegisteredObjects`). Turned on, it
    /// holds the objects registered now and later; turned off, it lets them go.
    var retainsObjects: Bool {
        get { withLock { retained != nil } }
        set {
            // Let go of outside the lock: the objects may deinitialize, which takes it.
            var dropped: [UnsafeMutableRawPointer: NSManagedObject]?
            withLock {
                guard newValue != (retained != nil) else { return }
                if newValue {
                    retained = Dictionary(uniqueKeysWithValues: values.map { (Unmanaged.passUnretained($0).toOpaque(), $0) })
                } else {
                    dropped = retained.take()
                }
            }
            _ = dropped
        }
    }

    /// Whether `key` belongs in a table: a saved object's key (temporary IDs go to `others`).
    private static func isPaged(_ key: ObjectKey) -> Bool {
        key.temporary == nil && key.store != nil && key.primaryKey > 0
    }

    /// The table a paged key belongs in; nil for the others.
    private static func tableID(for key: ObjectKey) -> TableID? {
        guard isPaged(key), let store = key.store else { return nil }
        return TableID(store: store, root: key.root)
    }

    /// The table for a paged key; nil for the others, or when `creating` is false and there is none.
    private func table(for key: ObjectKey, creating: Bool) -> PrimaryKeyTable? {
        guard let id = Self.tableID(for: key) else { return nil }
        return creating ? tables.value(for: id, orInsert: PrimaryKeyTable()) : tables.value(for: id)
    }

    /// The object registered for `key`, retained; nil when there is none or it is deinitializing.
    /// Setting registers an object (or removes the key's with nil); an object registered under
    /// another key before must have been removed from it.
    subscript(key: ObjectKey) -> NSManagedObject? {
        get {
            withLock {
                if let table = table(for: key, creating: false) { return table[key.primaryKey] }
                return others[key]?.retainedUnlessDeinitializing()
            }
        }
        set {
            var dropped: NSManagedObject?
            withLock {
                let old: Unmanaged<NSManagedObject>?
                let new = newValue.map(Unmanaged.passUnretained)
                if let table = table(for: key, creating: newValue != nil) {
                    let slot = table.slot(for: key.primaryKey)
                    old = slot.pointee
                    slot.pointee = new
                } else if Self.isPaged(key) {
                    // Removing from a table that was never created.
                    old = nil
                } else if let new {
                    old = others.updateValue(new, forKey: key)
                } else {
                    old = others.removeValue(forKey: key)
                }
                registered += (new == nil ? 0 : 1) - (old == nil ? 0 : 1)
                if retained != nil {
                    if let old, old.toOpaque() != new?.toOpaque() { dropped = retained!.removeValue(forKey: old.toOpaque()) }
                    if let new, let newValue { retained![new.toOpaque()] = newValue }
                }
            }
            // A retained object let go of deinitializes outside the lock.
            _ = dropped
        }
    }

    /// The registered object for `key`, or the one `make` creates, now registered; `isNew` says
    /// which. One lookup either way.
    ///
    /// - Parameters:
    ///   - key: The object's key.
    ///   - make: Creates the object; runs under the registry's lock, so it must not release
    ///     objects or call the app's code.
    /// - Returns: The object, retained, and whether `make` created it.
    func object(for key: ObjectKey, orInsert make: () -> NSManagedObject) -> (object: NSManagedObject, isNew: Bool) {
        withLock {
            if let table = table(for: key, creating: true) {
                let slot = table.slot(for: key.primaryKey)
                if let object = PrimaryKeyTable.object(in: slot) { return (object, false) }
                let object = make()
                put(object, in: slot)
                return (object, true)
            }
            if let object = others[key]?.retainedUnlessDeinitializing() { return (object, false) }
            let object = make()
            let replacing = others.updateValue(.passUnretained(object), forKey: key) != nil
            didRegister(object, replacing: replacing)
            return (object, true)
        }
    }

    /// The table of `store`'s saved objects of the hierarchy numbered `root`, created if needed:
    /// registering a fetch's rows finds it once for every row. Use it under `withLock(_:)` only,
    /// and call `didRegister(_:)` for each object stored through it.
    func pagedTable(store: NSPersistentStore, root: Int32) -> PrimaryKeyTable {
        withLock { tables.value(for: TableID(store: ObjectIdentifier(store), root: root), orInsert: PrimaryKeyTable()) }
    }

    /// Counts an object stored through a `pagedTable(store:root:)` slot (and holds it, while the
    /// registry retains its objects). Call under `withLock(_:)`.
    ///
    /// - Parameters:
    ///   - object: The object now in the slot.
    ///   - replacing: Whether the slot named another object before, one on its way out (counted
    ///     already; its deinitializer no longer finds itself there).
    @inline(__always)
    func didRegister(_ object: NSManagedObject, replacing: Bool = false) {
        if !replacing { registered += 1 }
        if retained != nil { retained![Unmanaged.passUnretained(object).toOpaque()] = object }
    }

    /// Puts `object` in `slot` of one of this registry's tables and counts it. Call under
    /// `withLock(_:)`.
    ///
    /// A slot still naming another object (one on its way out, or an object registered before
    /// under this key) is overwritten: that one was counted, and its deinitializer no longer
    /// finds itself here.
    @inline(__always)
    func put(_ object: NSManagedObject, in slot: PrimaryKeyTable.Slot) {
        let replacing = slot.pointee != nil
        slot.pointee = .passUnretained(object)
        didRegister(object, replacing: replacing)
    }

    /// Counts objects that moved into this registry's tables (an asynchronous fetch's pages):
    /// `added` of them took empty slots. Holds them while the registry retains its objects.
    func didAdopt(_ objects: [Unmanaged<NSManagedObject>], added: Int) {
        withLock {
            registered += added
            guard retained != nil else { return }
            for object in objects { retained![object.toOpaque()] = object.takeUnretainedValue() }
        }
    }

    /// Removes `object` from `key`, where its deinitializer found it registered: the slot may
    /// hold another object by now (the key registered again, or the registry reset), which stays.
    ///
    /// - Parameters:
    ///   - object: The address of the object being deinitialized; it is compared, never read.
    ///   - key: The key the object is registered under, from its own state.
    func forget(_ object: UnsafeMutableRawPointer, key: ObjectKey) {
        withLock {
            if let id = Self.tableID(for: key) {
                // Borrowed, not retained: the registry keeps its tables while it lives, and a
                // retain here would cost two atomic operations an object let go of.
                guard let table = tables.unretainedValue(for: id) else { return }
                let cleared = table._withUnsafeGuaranteedRef { table in
                    guard let slot = table.existingSlot(for: key.primaryKey), slot.pointee?.toOpaque() == object else {
                        return false
                    }
                    slot.pointee = nil
                    return true
                }
                guard cleared else { return }
            } else {
                guard others[key]?.toOpaque() == object else { return }
                others[key] = nil
            }
            registered -= 1
        }
    }

    /// Removes and returns the object for `key`, retained; nil when none is registered.
    @discardableResult
    func removeValue(forKey key: ObjectKey) -> NSManagedObject? {
        withLock {
            let old = self[key]
            if old != nil { self[key] = nil }
            return old
        }
    }

    /// Every registered object that is not deinitializing, retained, in no particular order.
    ///
    /// - Complexity: O(n) for the n registered objects, plus the pages that held any.
    var values: [NSManagedObject] {
        withLock {
            var result: [NSManagedObject] = []
            result.reserveCapacity(registered)
            for table in tables.values { table.appendObjects(to: &result) }
            for object in others.values {
                if let object = object.retainedUnlessDeinitializing() { result.append(object) }
            }
            return result
        }
    }
}

extension Unmanaged where Instance == NSManagedObject {
    /// The object, retained, unless its deinitialization has begun: a registry slot's object may
    /// be on its way out on another thread, and must not be handed out again then. What a weak
    /// reference's load does, without the side table a weak reference allocates for its object
    /// (16 bytes and two atomic operations a registered object).
    @inline(__always)
    func retainedUnlessDeinitializing() -> NSManagedObject? {
        ocd_try_retain(toOpaque()) ? takeRetainedValue() : nil
    }
}


/// A dictionary of objects that remembers the last key it found: registering a fetch's rows asks
/// for one table, and for one page, many times in a row, and comparing with the last key costs
/// less than hashing it.
struct RememberingDictionary<Key: Hashable, Value: AnyObject> {
    private var storage: [Key: Value] = [:]
    private var last: (key: Key, value: Value)?

    /// The value for `key`, if any.
    mutating func value(for key: Key) -> Value? {
        unretainedValue(for: key)?.takeUnretainedValue()
    }

    /// The value for `key`, if any, not retained: valid while the dictionary holds it.
    mutating func unretainedValue(for key: Key) -> Unmanaged<Value>? {
        if let last, last.key == key { return .passUnretained(last.value) }
        guard let value = storage[key] else { return nil }
        last = (key, value)
        return .passUnretained(value)
    }

    /// The value for `key`, stored first when there is none.
    mutating func value(for key: Key, orInsert make: @autoclosure () -> Value) -> Value {
        if let value = value(for: key) { return value }
        let value = make()
        storage[key] = value
        last = (key, value)
        return value
    }

    var values: Dictionary<Key, Value>.Values { storage.values }
    var keys: Dictionary<Key, Value>.Keys { storage.keys }
}
