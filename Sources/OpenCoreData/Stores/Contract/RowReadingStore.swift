/// A store that reads: rows, counts, IDs, faults, relationships and dictionaries. The members
/// with a default answer from the ones without; a store that can do better (read in chunks on
/// another thread, read keys without rows, answer a batch in one query) implements them.
package protocol RowReadingStore: OpenableStore {
    /// The rows `query` selects, in its order.
    ///
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError`-family errors for what the store
    ///   cannot run (134091 for a predicate it cannot evaluate), or its own errors.
    func fetchRows(_ query: StoreQuery) throws -> [StoreRow]
    /// How many rows `query` selects.
    ///
    /// - Throws: As `fetchRows(_:)`.
    func countRows(_ query: StoreQuery) throws -> Int
    /// The row of `entity`'s hierarchy with `primaryKey`, for firing a fault; nil when it is gone.
    ///
    /// - Throws: The store's errors.
    func row(of entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow?
    /// The destinations of a to-many `relationship` of the row with `primaryKey`, in order.
    ///
    /// - Throws: The store's errors.
    func relatedReferences(_ relationship: NSRelationshipDescription, ofPrimaryKey primaryKey: Int64) throws -> [ObjectReference]
    /// The dictionaries of a fetch with `.dictionaryResultType`, from the stored values.
    ///
    /// - Throws: As `fetchRows(_:)`; 134091 for a key path that is not stored.
    func fetchDictionaries(_ query: StoreQuery, _ fetch: DictionaryFetch) throws -> [[String: Any]]

    /// The rows of `query` given to `body`, in order, a chunk at a time, on the calling thread, so
    /// that the caller turns rows into objects while the store reads the next ones.
    func fetchRows(_ query: StoreQuery, inChunks body: (inout [StoreRow]) throws -> Void) throws
    /// The rows of `query` for an asynchronous fetch: `meter` counts them as they are read, and
    /// with `chunks` they go to `chunks.handOver` as they come (the last few are returned).
    ///
    /// - Throws: `StoreReadCancelled` once `monitor` is cancelled; the read's own errors.
    func fetchRows(_ query: StoreQuery, monitor: StoreReadMonitor, meter: RowMeter, chunks: RowChunks?) throws -> [StoreRow]
    /// The IDs of the rows `query` selects, for `.managedObjectIDResultType`.
    func fetchObjectIDs(_ query: StoreQuery) throws -> [NSManagedObjectID]
    /// The entity number and key of each row `query` selects, in its order: what a batched
    /// result keeps of a row until its batch is read.
    func fetchReferences(_ query: StoreQuery) throws -> [ObjectReference]
    /// The rows of `entity`'s hierarchy with these primary keys (missing ones left out), for
    /// batch faulting and prefetching.
    func rows(of entity: NSEntityDescription, primaryKeys: [Int64]) throws -> [StoreRow]
    /// Starts reading `rows(of:primaryKeys:)` on another thread, for a batch the context is about
    /// to need; nil where the store cannot.
    func startReadingRows(of entity: NSEntityDescription, primaryKeys: [Int64]) -> PendingRows?
    /// The rows a `startReadingRows` read, or nil when the caller must read them again.
    func takeRows(_ pending: PendingRows) -> [StoreRow]?
    /// The destination rows of the to-many `relationship` of each source key, in each source's
    /// order, for prefetching.
    func relatedRows(_ relationship: NSRelationshipDescription, ofPrimaryKeys keys: [Int64]) throws -> [(source: Int64, row: StoreRow)]
}

extension RowReadingStore {
    /// By default one chunk holds them all.
    package func fetchRows(_ query: StoreQuery, inChunks body: (inout [StoreRow]) throws -> Void) throws {
        var rows = try fetchRows(query)
        try body(&rows)
    }

    /// By default the rows are read in one go, `monitor` looked at before and after.
    package func fetchRows(_ query: StoreQuery, monitor: StoreReadMonitor, meter: RowMeter, chunks: RowChunks?) throws -> [StoreRow] {
        try monitor.checkCancellation()
        let rows = try fetchRows(query)
        meter.rowsRead(rows.count)
        try monitor.checkCancellation()
        return rows
    }

    package func fetchObjectIDs(_ query: StoreQuery) throws -> [NSManagedObjectID] {
        var query = query
        query.includesPropertyValues = false
        var lookup = EntityLookup(store: self)
        return try fetchRows(query).map { row in
            NSManagedObjectID(entity: lookup.entity(row.entityNumber), store: self, primaryKey: row.primaryKey)
        }
    }

    package func fetchReferences(_ query: StoreQuery) throws -> [ObjectReference] {
        var query = query
        query.includesPropertyValues = false
        return try fetchRows(query).map { ObjectReference(entityNumber: $0.entityNumber, primaryKey: $0.primaryKey) }
    }

    package func rows(of entity: NSEntityDescription, primaryKeys: [Int64]) throws -> [StoreRow] {
        try primaryKeys.compactMap { try row(of: entity, primaryKey: $0) }
    }

    package func startReadingRows(of entity: NSEntityDescription, primaryKeys: [Int64]) -> PendingRows? { nil }
    package func takeRows(_ pending: PendingRows) -> [StoreRow]? { nil }

    package func relatedRows(_ relationship: NSRelationshipDescription, ofPrimaryKeys keys: [Int64]) throws -> [(source: Int64, row: StoreRow)] {
        var result: [(source: Int64, row: StoreRow)] = []
        for key in keys {
            for reference in try relatedReferences(relationship, ofPrimaryKey: key) {
                guard let destination = entity(number: reference.entityNumber),
                    let row = try row(of: destination, primaryKey: reference.primaryKey)
                else { continue }
                result.append((key, row))
            }
        }
        return result
    }
}

/// A fetch as a store runs it: everything about the request except the context.
package struct StoreQuery {
    package var entity: NSEntityDescription
    package var predicate: NSPredicate?
    package var sortDescriptors: [NSSortDescriptor]
    package var fetchLimit: Int
    package var fetchOffset: Int
    package var includesSubentities: Bool
    /// Whether the rows' values are needed, or only their identity.
    package var includesPropertyValues: Bool

    package init(entity: NSEntityDescription, predicate: NSPredicate? = nil, sortDescriptors: [NSSortDescriptor], fetchLimit: Int, fetchOffset: Int, includesSubentities: Bool, includesPropertyValues: Bool) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includesSubentities = includesSubentities
        self.includesPropertyValues = includesPropertyValues
    }
}

/// A row as a store returns it: identity, version and values in slot order (to-ones as
/// references, to-many as `.unloaded`).
package struct StoreRow {
    var entityNumber: Int32
    package var primaryKey: Int64
    var version: Int64
    var values: SlotRow?

    package init(entityNumber: Int32, primaryKey: Int64, version: Int64, values: SlotRow? = nil) {
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
        self.version = version
        self.values = values
    }
}
