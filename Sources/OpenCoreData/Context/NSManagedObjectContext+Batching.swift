/// One batch of a fetch with `fetchBatchSize`: the objects it returned as bare faults, filled
/// together by one query the first time any of them is read.
///
/// The fetch returns an ordinary `Array` (Swift has no lazy `[T]` a fetch could hand out), so
/// the array holds every object from the start, but only as a fault carrying its ID; the values of
/// a batch are read when one of its objects fires its fault.
final class FetchBatch {
    unowned let store: any RowReadingStore
    let entity: NSEntityDescription
    let primaryKeys: [Int64]
    /// `relationshipKeyPathsForPrefetching`, applied to the batch when it loads.
    let prefetching: [String]
    /// The batch after this one in the fetch's result, while its objects need it. Weak: a strong
    /// chain would keep loaded batches alive and free them in one deep recursion.
    weak var next: FetchBatch?
    /// This batch's rows, being read on another thread since an earlier batch loaded.
    var pending: PendingRows?
    /// Whether the batch's rows have been registered into its faults.
    var isLoaded = false
    /// Whether the batch before this one has loaded (or there is none): the result is being read
    /// in order, and reading ahead pays.
    var followsLoaded = false

    init(store: any RowReadingStore, entity: NSEntityDescription, primaryKeys: [Int64], prefetching: [String]) {
        self.store = store
        self.entity = entity
        self.primaryKeys = primaryKeys
        self.prefetching = prefetching
    }
}

extension SlotRow {
    /// The row as the committed snapshot keeps it: its own copy of every to-many set, so that
    /// editing the object's relationships does not edit its committed values.
    var committedCopy: SlotRow {
        var copy = self
        for index in copy.indices {
            if case .toMany(let set) = copy[index] { copy[index] = .toMany(set.copy()) }
        }
        return copy
    }
}

extension NSManagedObject {
    /// Makes the object's values its committed snapshot: the values themselves, neither copied
    /// nor retained, when the entity has no to-many relationship (no set to copy, and no pass
    /// over the row); else a copy with sets of its own.
    func commitCurrentValues() {
        if committedSnapshotIsValues {
            commitValuesInPlace()
        } else {
            committed = slotValues.committedCopy
        }
    }

    /// Whether the committed snapshot of values is those values themselves: the entity has no
    /// to-many relationship, whose set the values and the snapshot must not share.
    var committedSnapshotIsValues: Bool {
        if let template = entity.layout?.objectTemplate { return template.toManySlots.isEmpty }
        return false
    }
}

extension NSManagedObjectContext {
    /// Splits fetched faults into batches of `size`; objects that already have values are left
    /// out of every batch, as are those of another store than the first pending one of a batch.
    func assignBatches(_ objects: [NSManagedObject], size: Int, entity: NSEntityDescription, prefetching: [String]) {
        let root = entity.layout!.root
        var keys: [Int64] = []
        keys.reserveCapacity(size)
        var start = 0
        var previous: FetchBatch?
        while start < objects.count {
            let range = start..<Swift.min(start + size, objects.count)
            start = range.upperBound
            // Two passes with one test rather than filtered copies: this runs for every object
            // of a million-row fetch.
            var batchStore: NSPersistentStore?
            func joins(_ object: NSManagedObject) -> Bool {
                guard object.isFault, object.cachedRow == nil, object.primaryKey != 0, let store = object.store else { return false }
                if batchStore == nil { batchStore = store }
                return store === batchStore
            }
            keys.removeAll(keepingCapacity: true)
            for index in range where joins(objects[index]) { keys.append(objects[index].primaryKey) }
            guard let batchStore, let store = try? reader(of: batchStore) else { continue }
            let batch = FetchBatch(store: store, entity: root, primaryKeys: keys, prefetching: prefetching)
            if let previous { previous.next = batch } else { batch.followsLoaded = true }
            previous = batch
            for index in range where joins(objects[index]) { objects[index].fetchBatch = batch }
        }
    }

    /// Reads the values of every object of `batch` in one query, leaving them as faults that fill
    /// from those values without another query.
    func loadBatch(_ batch: FetchBatch) throws {
        if parent == nil, let generation = try generationToEnter() {
            return try QueryGenerationScope.$token.withValue(generation) { try loadBatch(batch) }
        }
        var rowsReadAhead: [StoreRow]?
        if let pending = batch.pending {
            batch.pending = nil
            // Read here if the store's thread has not started; if it has, read a later batch
            // meanwhile rather than wait.
            if !pending.runIfUnclaimed(), !pending.isFinished { readLaterBatch(after: batch) }
            rowsReadAhead = batch.store.takeRows(pending)
        }
        let rows = try rowsReadAhead.take() ?? batch.store.rows(of: batch.entity, primaryKeys: batch.primaryKeys)
        batch.isLoaded = true
        batch.next?.followsLoaded = true
        if batch.followsLoaded { readAhead(after: batch) }
        let complete = rows.count == batch.primaryKeys.count
        let members = registerRows(rows, store: batch.store, filling: false, refresh: false)
        for object in members where object.fetchBatch === batch { object.fetchBatch = nil }
        if !complete {
            // Rows deleted since the fetch: their objects leave the batch too.
            for key in batch.primaryKeys {
                let objectKey = ObjectKey(
                    store: ObjectIdentifier(batch.store), root: Int32(batch.entity.layout!.entityNumber), primaryKey: key, temporary: nil)
                if let object = registry[objectKey], object.fetchBatch === batch { object.fetchBatch = nil }
            }
        }
        if !batch.prefetching.isEmpty {
            try prefetch(batch.prefetching, of: members, entity: batch.entity, store: batch.store)
        }
    }

    /// Queues reads of the batches after `batch` on the store's thread, so that it reads while
    /// the context uses this one, with no pause between its reads and one left for
    /// `readLaterBatch` to take.
    private func readAhead(after batch: FetchBatch) {
        var window: [FetchBatch] = []
        var next = batch.next
        while window.count < 3, let candidate = next {
            if !candidate.isLoaded {
                if candidate.pending == nil {
                    candidate.pending = candidate.store.startReadingRows(of: candidate.entity, primaryKeys: candidate.primaryKeys)
                }
                window.append(candidate)
            }
            next = candidate.next
        }
        // Rows read ahead for batches the reading has jumped away from are dropped, so that at
        // most three batches' rows wait at a time.
        for old in batchesReadAhead where !window.contains(where: { $0 === old }) { old.pending = nil }
        batchesReadAhead = window
    }

    /// Forgets every row read ahead: after a refresh or a merge they may be older than the store.
    func dropReadAhead() {
        guard !batchesReadAhead.isEmpty else { return }
        for batch in batchesReadAhead { batch.pending = nil }
        batchesReadAhead.removeAll()
    }

    /// Runs, on this thread, the first queued read after `batch` that the store's thread has not
    /// started.
    private func readLaterBatch(after batch: FetchBatch) {
        for candidate in batchesReadAhead where candidate !== batch {
            if let pending = candidate.pending, pending.runIfUnclaimed() { return }
        }
    }

    // MARK: Prefetching

    /// Fetches the destinations of each relationship key path (`books`, `books.tags`) of
    /// `objects` with one query per relationship, however many objects there are. To-one
    /// destinations and to-many contents are then read without touching the store.
    ///
    /// - Throws: `NSCoreDataError` naming a key path component that is not a relationship.
    func prefetch(_ keyPaths: [String], of objects: [NSManagedObject], entity: NSEntityDescription, store: any RowReadingStore) throws {
        var reached: [String: (objects: [NSManagedObject], entity: NSEntityDescription)] = ["": (objects, entity)]
        for keyPath in keyPaths {
            var prefix = ""
            for part in keyPath.split(separator: ".").map(String.init) {
                let path = prefix.isEmpty ? part : prefix + "." + part
                defer { prefix = path }
                if reached[path] != nil { continue }
                let (sources, sourceEntity) = reached[prefix]!
                guard let relationship = sourceEntity.relationshipsByName[part] else {
                    throw CoreDataError.make(
                        NSCoreDataError, "The prefetching key path \(keyPath) names \(part), which is not a relationship of entity \(sourceEntity.name ?? "?").",
                        userInfo: ["entity": sourceEntity.name ?? "", "key": keyPath])
                }
                let destinations = try prefetch(relationship, of: sources.filter { $0.store === store }, store: store)
                reached[path] = (destinations, relationship.destinationEntity!)
            }
        }
    }

    /// One query for `relationship` of all `sources`; returns the destination objects.
    private func prefetch(_ relationship: NSRelationshipDescription, of sources: [NSManagedObject], store: any RowReadingStore) throws -> [NSManagedObject] {
        let slot = relationship.slot
        if !relationship.isToMany {
            var destinations: [NSManagedObject] = []
            var missing: [Int64] = []
            for source in sources {
                guard let values = source.cachedRow ?? (source.isFault ? nil : source.slots) else { continue }
                switch values[slot] {
                case .toOne(let object): destinations.append(object)
                case .reference(let reference):
                    let object = registeredObject(for: reference, in: store)
                    destinations.append(object)
                    if object.isFault, object.cachedRow == nil { missing.append(reference.primaryKey) }
                    // The source holds its destination from now on, as reading the relationship
                    // would make it: otherwise only the registry would, which lets go of objects
                    // nothing holds, and the prefetched values with them.
                    source.slots[slot] = .toOne(object)
                default: break
                }
            }
            if !missing.isEmpty {
                for row in try store.rows(of: relationship.destinationEntity!, primaryKeys: Array(Set(missing)).sorted()) {
                    _ = register(row: row, store: store, refresh: false)
                }
            }
            return destinations
        }
        // Sources whose set is already loaded (or edited) keep it.
        let needing = sources.filter { source in
            guard source.primaryKey != 0 else { return false }
            if let row = source.cachedRow { if case .unloaded = row[slot] { return true } else { return false } }
            if source.isFault { return false }
            if case .unloaded = source.slots[slot] { return true }
            return false
        }
        guard !needing.isEmpty else { return [] }
        var contents: [Int64: [NSManagedObject]] = [:]
        var destinations: [NSManagedObject] = []
        for (source, row) in try store.relatedRows(relationship, ofPrimaryKeys: needing.map(\.primaryKey)) {
            let object = register(row: row, store: store, refresh: false)
            contents[source, default: []].append(object)
            destinations.append(object)
        }
        for source in needing {
            let set = RelationshipSet(contents[source.primaryKey] ?? [])
            if source.cachedRow != nil {
                source.cachedRow![slot] = .toMany(set)
            } else {
                source.slots[slot] = .toMany(set)
                if source.committed != nil { source.committed![slot] = .toMany(set.copy()) }
            }
        }
        return destinations
    }
}
