extension NSManagedObjectContext {
    /// The context's objects for a fetch's rows, in order: registered ones as they are (given the
    /// row's values when they lack them), new ones created and registered.
    ///
    /// With `filling`, a new object takes the row's values at once (and `awakeFromFetch` runs),
    /// instead of becoming a fault that carries them until it is read.
    func registerRows(
        _ rows: consuming [StoreRow], store: NSPersistentStore, filling: Bool, refresh: Bool
    ) -> [NSManagedObject] {
        var fetched: [NSManagedObject] = []
        fetched.reserveCapacity(rows.count)
        var registrar = RowRegistrar(store: store, filling: filling, refresh: refresh)
        registerRows(&rows, with: &registrar, into: &fetched)
        return fetched
    }

    /// Registers one chunk of a fetch's rows after the chunks before it, moving their values out.
    ///
    /// The chunk registers under the registry's lock, taken once; what may release objects (new
    /// values for objects registered before) or run the app's code (`awakeFromFetch`) follows
    /// outside it (`ObjectRegistry`).
    func registerRows(_ rows: inout [StoreRow], with registrar: inout RowRegistrar, into fetched: inout [NSManagedObject]) {
        let start = fetched.count
        var existing: [Int] = []
        registry.withLock {
            rows.withUnsafeMutableBufferPointer { rows in
                for index in rows.indices {
                    let (object, isNew) = registrar.registerLocked(&rows[index], in: self)
                    if !isNew { existing.append(index) }
                    fetched.append(object)
                }
            }
        }
        for index in existing { update(fetched[start + index], from: &rows[index], refresh: registrar.refresh) }
        guard registrar.filling, registrar.awakening == .afterEachChunk else { return }
        var next = existing.makeIterator()
        var skip = next.next()
        for index in rows.indices {
            if index == skip {
                skip = next.next()
                continue
            }
            if fetched[start + index].faultState == .filled { fetched[start + index].awakeFromFetch() }
        }
    }

    /// What a fetch asked for filled objects owes them once its read is over: `awakeFromFetch`
    /// for each new object that took its values as it registered (`RowRegistrar.Awakening.afterRead`)
    /// and has not been used since (its use awoke it), and its values for every fault.
    ///
    /// - Parameters:
    ///   - fetched: The read's objects, in order.
    ///   - firingFaults: Whether the faults are filled too; after a read that failed they stay
    ///     faults, and only the objects that took values awake.
    /// - Complexity: O(*n*) for the *n* objects, plus filling the faults among them.
    func finishFilling(_ fetched: [NSManagedObject], firingFaults: Bool = true) {
        // Unretained: the array holds each object. A copy of each, or a call of the overridable
        // method on it, was a retain and a release, most of this walk's time over a million.
        fetched.forEachUnretained { object in
            object._withUnsafeGuaranteedRef { object in
                if firingFaults || object.faultState == .awaitingAwake { object.fireFault() }
            }
        }
    }

    /// Gives an already registered object what a newly fetched row of it brings: its values when
    /// it is a fault without them, or, with `refresh`, the row's values over unchanged ones.
    func update(_ object: NSManagedObject, from row: inout StoreRow, refresh: Bool) {
        if object.isFault, object.cachedRow == nil, let values = row.values.take() {
            object.cachedRow = values
            object.version = row.version
        } else if refresh, !object.hasChanges, let values = row.values.take() {
            object.takeCommittedValues(values)
            object.version = row.version
        }
    }
}

/// Registers the rows of one store, one at a time, in a context: the loop a million-row fetch
/// spends its time in, synchronous or asynchronous.
///
/// The hierarchy's registry table is found once, not per row; each row's values move into their
/// object without being copied; objects are created without a per-row closure. Only the
/// context's queue uses it.
struct RowRegistrar {
    let store: NSPersistentStore
    /// `store`, which this registrar keeps alive, for objects that refer to it unretained: read
    /// from `store` in a mutating method, it was retained and released per row.
    private let storeReference: Unmanaged<NSPersistentStore>
    /// When new objects that took their row's values run `awakeFromFetch`.
    enum Awakening {
        /// After each chunk, outside the registry's lock.
        case afterEachChunk
        /// When each is first used, or once the whole read is over (`finishFilling(_:firingFaults:)`),
        /// whichever comes first: a chunk registers inside the store's read, where the app's code
        /// must not run. Meanwhile the object is `awaitingAwake`.
        case afterRead
    }

    /// Whether new objects take their row's values at once rather than as a fault's cached row.
    let filling: Bool
    let awakening: Awakening
    let refresh: Bool
    /// Where new objects go instead of the registry, when given: an asynchronous fetch registers
    /// them once every row is in (`AsynchronousFetchOperation`), so that a cancellation has
    /// nothing to take back.
    let staging: PrimaryKeyTable?
    /// Whether a new object was registered at once despite `staging` (a key of 0 or less).
    private(set) var registeredNew = false
    private(set) var lookup: EntityLookup
    private var table: PrimaryKeyTable?
    private var tableRoot: Int32 = -1

    init(
        store: NSPersistentStore, filling: Bool, awakening: Awakening = .afterEachChunk, refresh: Bool,
        staging: PrimaryKeyTable? = nil
    ) {
        self.store = store
        self.storeReference = .passUnretained(store)
        self.filling = filling
        self.awakening = awakening
        self.refresh = refresh
        self.staging = staging
        self.lookup = EntityLookup(store: store)
    }

    /// The object for `row`, and whether it was created (and registered, or staged) for it,
    /// given what the row brings: values for an object registered before, `awakeFromFetch` for a
    /// new one that took its values. The row's values are moved out when an object takes them.
    mutating func register(_ row: inout StoreRow, in context: NSManagedObjectContext) -> (object: NSManagedObject, isNew: Bool) {
        let (object, isNew) = context.registry.withLock { registerLocked(&row, in: context) }
        if !isNew {
            context.update(object, from: &row, refresh: refresh)
        } else if filling, object.faultState == .filled {
            object.awakeFromFetch()
        }
        return (object, isNew)
    }

    /// `register(_:in:)`'s part under the registry's lock, which the caller holds: the object
    /// found or made, without the registered object's update or the new one's
    /// `awakeFromFetch`, which the caller owes it.
    mutating func registerLocked(_ row: inout StoreRow, in context: NSManagedObjectContext) -> (object: NSManagedObject, isNew: Bool) {
        let entity = lookup.entity(row.entityNumber)
        let primaryKey = row.primaryKey
        guard primaryKey > 0 else {
            // Not a key a table holds: the general path.
            let (object, isNew) = context.registerUnfilled(
                row: row, entity: entity, objectClass: lookup.objectClass, root: lookup.rootNumber, store: store)
            // Registered even when staging: such keys are not a store's.
            if isNew { registeredNew = true }
            return (object, isNew)
        }
        if lookup.rootNumber != tableRoot {
            table = context.registry.pagedTable(store: store, root: lookup.rootNumber)
            tableRoot = lookup.rootNumber
        }
        // Staging looks in the registry without adding pages to it: a cancelled fetch leaves none.
        let slot = staging == nil ? table.unsafelyUnwrapped.slot(for: primaryKey) : table.unsafelyUnwrapped.existingSlot(for: primaryKey)
        if let slot, let object = PrimaryKeyTable.object(in: slot) { return (object, false) }
        let object = NSManagedObject.materialize(
            entity: consume entity, store: storeReference, primaryKey: primaryKey, version: row.version,
            objectClass: lookup.objectClass, token: .passUnretained(context.token))
        if let staging {
            // The operation holds its staged objects until they are registered.
            staging.slot(for: primaryKey).pointee = .passUnretained(object)
        } else {
            context.registry.put(object, in: slot.unsafelyUnwrapped)
        }
        // The row's values move into the object: each copy is an atomic retain and release.
        if filling, let values = row.values.take() {
            object.takeCommittedValues(consume values)
            object.faultState = awakening == .afterRead ? .awaitingAwake : .filled
        } else {
            object.cachedRow = row.values.take()
        }
        return (object, true)
    }
}
