/// The objects a context has registered, by identity.
///
/// Saved objects are found by primary key in pages of consecutive keys: Core Data hands out keys
/// in sequence per entity hierarchy, so they are dense, and registering the objects of a
/// million-row fetch hashes a page number once per 256 objects and costs about 8 bytes an object
/// instead of a 40-byte dictionary bucket. Temporary IDs go to a dictionary.
///
/// A class so that lookups can remember the last table they used; only the owning context's
/// queue touches it.
final class ObjectRegistry {
    /// The keys of one entity hierarchy in one store.
    private struct TableID: Hashable {
        var store: ObjectIdentifier
        var root: Int32
    }

    @exclusivity(unchecked) private var tables = RememberingDictionary<TableID, PrimaryKeyTable>()
    @exclusivity(unchecked) private var others: [ObjectKey: NSManagedObject] = [:]
    /// How many objects are registered.
    @exclusivity(unchecked) private(set) var count = 0

    /// Whether `key` belongs in a table: a saved object's key (temporary IDs go to `others`).
    private static func isPaged(_ key: ObjectKey) -> Bool {
        key.temporary == nil && key.store != nil && key.primaryKey > 0
    }

    /// The table for a paged key; nil for the others, or when `creating` is false and there is none.
    private func table(for key: ObjectKey, creating: Bool) -> PrimaryKeyTable? {
        guard Self.isPaged(key), let store = key.store else { return nil }
        let id = TableID(store: store, root: key.root)
        return creating ? tables.value(for: id, orInsert: PrimaryKeyTable()) : tables.value(for: id)
    }

    subscript(key: ObjectKey) -> NSManagedObject? {
        get {
            if let table = table(for: key, creating: false) { return table[key.primaryKey] }
            return others[key]
        }
        set {
            let old: NSManagedObject?
            if let table = table(for: key, creating: newValue != nil) {
                old = table[key.primaryKey]
                table[key.primaryKey] = newValue
            } else if Self.isPaged(key) {
                // Removing from a table that was never created.
                old = nil
            } else if let newValue {
                old = others.updateValue(newValue, forKey: key)
            } else {
                old = others.removeValue(forKey: key)
            }
            count += (newValue == nil ? 0 : 1) - (old == nil ? 0 : 1)
        }
    }

    /// The registered object for `key`, or the one `make` creates, now registered; `isNew` says
    /// which. One lookup either way.
    func object(for key: ObjectKey, orInsert make: () -> NSManagedObject) -> (object: NSManagedObject, isNew: Bool) {
        if let table = table(for: key, creating: true) {
            // The slot stays valid while `make` registers other objects: pages never move.
            let slot = table.slot(for: key.primaryKey)
            if let object = slot.pointee { return (object, false) }
            let object = make()
            slot.pointee = object
            count += 1
            return (object, true)
        }
        if let object = others[key] { return (object, false) }
        let object = make()
        others[key] = object
        count += 1
        return (object, true)
    }

    /// The table of `store`'s saved objects of the hierarchy numbered `root`, created if needed:
    /// registering a fetch's rows finds it once for every row. Call `didRegister(_:)` with the
    /// number of objects stored through it.
    func pagedTable(store: NSPersistentStore, root: Int32) -> PrimaryKeyTable {
        tables.value(for: TableID(store: ObjectIdentifier(store), root: root), orInsert: PrimaryKeyTable())
    }

    func didRegister(_ objects: Int) { count += objects }

    /// Pages need no room reserved ahead; the dictionary of other keys does.
    func reserveCapacity(_ capacity: Int) {
        others.reserveCapacity(Swift.min(capacity, others.count + 1024))
    }

    /// Removes and returns the object for `key` when the registry holds the only reference to it
    /// and `removable` agrees: nothing outside the context has taken it up.
    func removeIfOnlyReference(_ key: ObjectKey, where removable: (NSManagedObject) -> Bool) -> NSManagedObject? {
        let unique: Bool
        if let table = table(for: key, creating: false) {
            // One lookup of the slot: a cancelled fetch takes back its objects through here.
            guard let slot = table.existingSlot(for: key.primaryKey), slot.pointee != nil,
                isKnownUniquelyReferenced(&slot.pointee!), removable(slot.pointee!)
            else { return nil }
            let object = slot.pointee
            slot.pointee = nil
            count -= 1
            return object
        } else if others[key] != nil {
            unique = isKnownUniquelyReferenced(&others[key]!)
        } else {
            return nil
        }
        guard unique, let object = self[key], removable(object) else { return nil }
        self[key] = nil
        return object
    }

    /// Removes, of the saved objects of `store`'s hierarchy `root` with these keys, those only
    /// the registry holds and that have no unsaved changes; returns how many went. One table
    /// lookup for them all: a batched result lets a thousand objects go at a time.
    @discardableResult
    func removeUnreferenced(store: ObjectIdentifier, root: Int32, primaryKeys: some Sequence<Int64>) -> Int {
        guard let table = tables.value(for: TableID(store: store, root: root)) else { return 0 }
        var removed = 0
        for key in primaryKeys where key > 0 {
            if let slot = table.existingSlot(for: key), PrimaryKeyTable.emptyIfUnreferenced(slot) { removed += 1 }
        }
        count -= removed
        return removed
    }

    @discardableResult
    func removeValue(forKey key: ObjectKey) -> NSManagedObject? {
        let old = self[key]
        if old != nil { self[key] = nil }
        return old
    }

    /// Every registered object, in no particular order.
    var values: [NSManagedObject] {
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        for table in tables.values { table.appendObjects(to: &result) }
        result += others.values
        return result
    }

    /// Removes the objects that only the registry holds and that have no unsaved changes, and
    /// returns how many went. Nothing else can reach such an object, so it goes as it would from
    /// Core Data's weak registry. Pages stay, so that slot pointers handed out stay valid.
    @discardableResult
    func removeUnreferenced() -> Int {
        var removed = 0
        for table in tables.values { removed += table.removeUnreferenced() }
        // The keys copied out first: a view of the dictionary held while testing would share its
        // storage, and the test's write access would copy it, retaining every object.
        let unreferenced = Array(others.keys).filter { key in
            isKnownUniquelyReferenced(&others[key]!) && others[key]!.flags.isEmpty
        }
        for key in unreferenced { others[key] = nil }
        removed += unreferenced.count
        count -= removed
        return removed
    }

    func removeAll() {
        tables = RememberingDictionary()
        others = [:]
        count = 0
    }
}

/// Objects by primary key in pages of 256, allocated as keys reach them and found by page number.
/// Consecutive keys share a page, so a fetch in key order looks a page up once per 256 objects
/// (the last page is remembered); a context holding a few objects with large keys costs a few
/// pages, not an index as long as its largest key.
final class PrimaryKeyTable {
    private static let pageBits: Int64 = 8
    private static let pageSize = 1 << pageBits

    /// One page: fixed storage, never resized or removed while the table lives, so a pointer to
    /// its slots stays valid.
    private final class Page {
        let objects: UnsafeMutablePointer<NSManagedObject?>

        init() {
            objects = .allocate(capacity: PrimaryKeyTable.pageSize)
            objects.initialize(repeating: nil, count: PrimaryKeyTable.pageSize)
        }

        deinit {
            objects.deinitialize(count: PrimaryKeyTable.pageSize)
            objects.deallocate()
        }
    }

    @exclusivity(unchecked) private var pages = RememberingDictionary<Int64, Page>()
    /// The slots of the page `slot(for:)` used last.
    @exclusivity(unchecked) private var lastNumber: Int64 = -1
    @exclusivity(unchecked) private var lastSlots: UnsafeMutablePointer<NSManagedObject?>?
    /// The pages that may hold an object: each page a slot pointer was handed out for since a
    /// release pass last found it empty. A pass looks at these only, so its cost follows the
    /// objects registered, not every page a long-lived context ever touched (pages are never
    /// freed, for the slot pointers handed out).
    @exclusivity(unchecked) private var occupiedPages = Set<Int64>()

    private func page(for primaryKey: Int64, creating: Bool) -> Page? {
        let number = primaryKey >> Self.pageBits
        return creating ? pages.value(for: number, orInsert: Page()) : pages.value(for: number)
    }

    /// The slot of `primaryKey` (positive), its page created if needed; valid while the table lives.
    @inline(__always)
    func slot(for primaryKey: Int64) -> UnsafeMutablePointer<NSManagedObject?> {
        let number = primaryKey >> Self.pageBits
        if number != lastNumber || lastSlots == nil {
            lastSlots = pages.value(for: number, orInsert: Page()).objects
            lastNumber = number
            occupiedPages.insert(number)
        }
        return lastSlots! + Int(primaryKey & Int64(Self.pageSize - 1))
    }

    /// The slot of `primaryKey` if its page exists; valid while the table lives.
    func existingSlot(for primaryKey: Int64) -> UnsafeMutablePointer<NSManagedObject?>? {
        let number = primaryKey >> Self.pageBits
        if number != lastNumber || lastSlots == nil {
            guard let page = pages.value(for: number) else { return nil }
            lastSlots = page.objects
            lastNumber = number
            occupiedPages.insert(number)
        }
        return lastSlots! + Int(primaryKey & Int64(Self.pageSize - 1))
    }

    subscript(primaryKey: Int64) -> NSManagedObject? {
        get { page(for: primaryKey, creating: false)?.objects[Int(primaryKey) & (Self.pageSize - 1)] }
        set {
            guard let page = page(for: primaryKey, creating: newValue != nil) else { return }
            page.objects[Int(primaryKey) & (Self.pageSize - 1)] = newValue
            if newValue != nil { occupiedPages.insert(primaryKey >> Self.pageBits) }
        }
    }

    /// The numbers of the pages in use.
    var pageNumbers: [Int64] { Array(pages.keys) }

    /// How many pages a release pass looks at.
    var occupiedPageCount: Int { occupiedPages.count }

    /// Moves the objects of `other`'s page `number` here: the page itself when this table has
    /// none of that number (nothing is copied or retained, and no object is touched), else slot by
    /// slot. An object whose slot here is taken stays in `other`, and its key goes to `taken`.
    /// Returns how many objects moved. `other` must not be used afterwards but to be dropped.
    func adoptPage(_ number: Int64, from other: PrimaryKeyTable, taken: inout [Int64]) -> Int {
        guard let page = other.pages.value(for: number) else { return 0 }
        occupiedPages.insert(number)
        guard let mine = pages.value(for: number) else {
            _ = pages.value(for: number, orInsert: page)
            return (0..<Self.pageSize).reduce(0) { $0 + (page.objects[$1] == nil ? 0 : 1) }
        }
        var moved = 0
        for slot in 0..<Self.pageSize where page.objects[slot] != nil {
            if mine.objects[slot] == nil {
                mine.objects[slot] = page.objects[slot].take()
                moved += 1
            } else {
                taken.append(number << Self.pageBits | Int64(slot))
            }
        }
        return moved
    }

    /// Empties the slots of objects only this table holds that have no unsaved changes; returns
    /// how many.
    func removeUnreferenced() -> Int {
        var removed = 0
        var emptied: [Int64] = []
        for number in occupiedPages {
            guard let page = pages.value(for: number) else { continue }
            var kept = 0
            for slot in 0..<Self.pageSize where page.objects[slot] != nil {
                if Self.emptyIfUnreferenced(page.objects + slot) { removed += 1 } else { kept += 1 }
            }
            if kept == 0 { emptied.append(number) }
        }
        if !emptied.isEmpty {
            occupiedPages.subtract(emptied)
            // The next slot handed out marks its page again, even the one remembered last.
            lastNumber = -1
            lastSlots = nil
        }
        return removed
    }

    /// Empties `slot` when the table holds the only reference to its object and the object has
    /// no unsaved changes (nothing else can reach it, as from Core Data's weak registry); whether
    /// it did.
    static func emptyIfUnreferenced(_ slot: UnsafeMutablePointer<NSManagedObject?>) -> Bool {
        guard slot.pointee != nil, isKnownUniquelyReferenced(&slot.pointee!), slot.pointee!.flags.isEmpty else { return false }
        slot.pointee = nil
        return true
    }

    func appendObjects(to result: inout [NSManagedObject]) {
        for page in pages.values {
            for slot in 0..<Self.pageSize {
                if let object = page.objects[slot] { result.append(object) }
            }
        }
    }
}

/// A dictionary of objects that remembers the last key it found: registering a fetch's rows asks
/// for one table, and for one page, many times in a row, and comparing with the last key costs
/// less than hashing it.
private struct RememberingDictionary<Key: Hashable, Value: AnyObject> {
    private var storage: [Key: Value] = [:]
    private var last: (key: Key, value: Value)?

    /// The value for `key`, if any.
    mutating func value(for key: Key) -> Value? {
        if let last, last.key == key { return last.value }
        guard let value = storage[key] else { return nil }
        last = (key, value)
        return value
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
