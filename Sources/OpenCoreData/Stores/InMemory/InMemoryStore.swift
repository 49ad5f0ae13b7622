/// Core Data's in-memory store: rows kept in dictionaries, predicates evaluated in memory. Nothing
/// survives the coordinator.
final class InMemoryStore: NSPersistentStore, RowReadingStore, ChangeSavingStore, @unchecked Sendable {
    // @unchecked Sendable: `tables` and `maxKeys` are only touched under `lock`.
    private let lock = NSLock()
    private var tables: [Int32: [Int64: StoreRow]] = [:]
    private var maxKeys: [Int32: Int64] = [:]
    /// Many-to-many pairs by join table name, as (source key, destination key) seen from the owner.
    private var joins: [String: Set<JoinPair>] = [:]
    /// Positions in ordered to-many relationships, by order column and row key.
    private var orders: [String: Int64] = [:]

    override var type: String { NSInMemoryStoreType }

    func load(model: NSManagedObjectModel) throws {
        identifier = UUID().uuidString
        metadata = StoreMetadata.make(for: model, entities: entities, uuid: identifier, type: NSInMemoryStoreType)
    }

    func fetchRows(_ query: StoreQuery) throws -> [StoreRow] {
        var result = StoreRowView.sort(try matchingRows(query), by: query.sortDescriptors, store: self)
        if query.fetchOffset > 0 { result = Array(result.dropFirst(query.fetchOffset)) }
        if query.fetchLimit > 0 { result = Array(result.prefix(query.fetchLimit)) }
        return result
    }

    func fetchDictionaries(_ query: StoreQuery, _ fetch: DictionaryFetch) throws -> [[String: Any]] {
        let model = persistentStoreCoordinator!.managedObjectModel
        let rows = try matchingRows(query).map { StoreRowView(row: $0, model: model, store: self) }
        return try InMemoryDictionaries(store: self, entity: query.entity).compute(rows, fetch, query)
    }

    func countRows(_ query: StoreQuery) throws -> Int {
        var count = try matchingRows(query).count - query.fetchOffset
        if query.fetchLimit > 0 { count = min(count, query.fetchLimit) }
        return max(0, count)
    }

    private func matchingRows(_ query: StoreQuery) throws -> [StoreRow] {
        let root = Int32(query.entity.layout!.root.layout!.entityNumber)
        let numbers = Set(
            (query.includesSubentities ? query.entity.layout!.hierarchyNumbers : [query.entity.layout!.entityNumber]).map(Int32.init))
        lock.lock()
        let all = tables[root].map { Array($0.values) } ?? []
        lock.unlock()
        let rows = all.filter { numbers.contains($0.entityNumber) }.sorted { $0.primaryKey < $1.primaryKey }
        return query.predicate.map { StoreRowView.filter(rows, $0, store: self) } ?? rows
    }

    func row(of entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        lock.lock()
        defer { lock.unlock() }
        return tables[Int32(entity.layout!.root.layout!.entityNumber)]?[primaryKey]
    }

    func relatedReferences(
        _ relationship: NSRelationshipDescription, ofPrimaryKey primaryKey: Int64
    ) throws -> [ObjectReference] {
        let destinationRoot = Int32(relationship.destinationEntity!.layout!.root.layout!.entityNumber)
        lock.lock()
        defer { lock.unlock() }
        let rows = tables[destinationRoot] ?? [:]
        var keys: [Int64] = []
        if let inverse = relationship.inverseRelationship, !inverse.isToMany {
            keys = rows.values.compactMap { row -> Int64? in
                guard let values = row.values, case .reference(let reference) = values[inverse.slot],
                    reference.primaryKey == primaryKey
                else { return nil }
                return row.primaryKey
            }
        } else if let join = relationship.joinTable {
            let pairs = joins[join.name] ?? []
            keys = pairs.compactMap { pair in
                join.isOwner ? (pair.owner == primaryKey ? pair.other : nil) : (pair.other == primaryKey ? pair.owner : nil)
            }
        }
        // Where each member's position is kept: in its own row's order column (one-to-many), or
        // with its pair (many-to-many). Each is looked up once, not per comparison.
        let orderKey: ((Int64) -> String)? =
            if let column = relationship.inverseRelationship?.orderColumnName {
                { column + "/\($0)" }
            } else if let column = relationship.joinTable?.orderColumn {
                { Self.pairOrderKey(column, primaryKey, $0) }
            } else {
                nil
            }
        if let orderKey {
            keys = keys.map { (orders[orderKey($0)] ?? 0, $0) }.sorted { $0 < $1 }.map(\.1)
        } else {
            keys.sort()
        }
        return keys.compactMap { key in
            rows[key].map { ObjectReference(entityNumber: $0.entityNumber, primaryKey: key) }
        }
    }

    /// Where the position of `destination` in `source`'s list of an ordered many-to-many is kept.
    static func pairOrderKey(_ column: String, _ source: Int64, _ destination: Int64) -> String {
        "\(column)/\(source)/\(destination)"
    }

    func save(_ body: (any StoreWriter) throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        let writer = InMemoryWriter(
            tables: tables, maxKeys: maxKeys, joins: joins, orders: orders,
            entities: persistentStoreCoordinator?.managedObjectModel.entitiesInStoreOrder ?? [])
        try body(writer)
        tables = writer.tables
        maxKeys = writer.maxKeys
        joins = writer.joins
        orders = writer.orders
    }

    func reservePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        let root = Int32(entity.layout!.root.layout!.entityNumber)
        let first = (maxKeys[root] ?? 0) + 1
        maxKeys[root] = first + Int64(count) - 1
        return first
    }
}

/// Applies a save to copies of the tables; the store keeps them only if the whole save succeeds.
final class InMemoryWriter: StoreWriter {
    var tables: [Int32: [Int64: StoreRow]]
    var maxKeys: [Int32: Int64]
    var joins: [String: Set<JoinPair>]
    var orders: [String: Int64]
    /// The model's entities in store order, to read a stored row through its own entity.
    let entities: [NSEntityDescription]
    /// The rows this save inserted or updated, by root entity number and key (for `now()`).
    var written: Set<InMemoryRowKey> = []

    init(
        tables: [Int32: [Int64: StoreRow]], maxKeys: [Int32: Int64], joins: [String: Set<JoinPair>], orders: [String: Int64],
        entities: [NSEntityDescription]
    ) {
        self.tables = tables
        self.maxKeys = maxKeys
        self.joins = joins
        self.orders = orders
        self.entities = entities
    }

    func root(_ entity: NSEntityDescription) -> Int32 { Int32(entity.layout!.root.layout!.entityNumber) }

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64 {
        let first = (maxKeys[root(entity)] ?? 0) + 1
        maxKeys[root(entity)] = first + Int64(count) - 1
        return first
    }

    func insert(entity: NSEntityDescription, primaryKey: Int64, values: RowValues) throws {
        try checkUniqueness(entity: entity, primaryKey: primaryKey, values: values)
        written.insert(InMemoryRowKey(root: root(entity), primaryKey: primaryKey))
        tables[root(entity), default: [:]][primaryKey] = StoreRow(
            entityNumber: Int32(entity.layout!.entityNumber), primaryKey: primaryKey, version: 1, values: values.slots)
    }

    func update(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64, values: RowValues) throws -> Bool {
        guard let row = tables[root(entity)]?[primaryKey], row.version == expectedVersion else { return false }
        try checkUniqueness(entity: entity, primaryKey: primaryKey, values: values)
        written.insert(InMemoryRowKey(root: root(entity), primaryKey: primaryKey))
        tables[root(entity)]![primaryKey] = StoreRow(
            entityNumber: row.entityNumber, primaryKey: primaryKey, version: expectedVersion + 1, values: values.slots)
        return true
    }

    func delete(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64) throws -> Bool {
        guard let row = tables[root(entity)]?[primaryKey], row.version == expectedVersion else { return false }
        tables[root(entity)]![primaryKey] = nil
        for property in entity.properties {
            guard let join = (property as? NSRelationshipDescription)?.joinTable else { continue }
            joins[join.name] = joins[join.name]?.filter { join.isOwner ? $0.owner != primaryKey : $0.other != primaryKey }
        }
        return true
    }

    func currentRow(entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow? {
        tables[root(entity)]?[primaryKey]
    }

    func rowMatching(entity: NSEntityDescription, slots: [Int], values: RowValues, excluding: Int64) throws -> Int64? {
        let names = slots.map { entity.properties[$0].name }
        return (tables[root(entity)] ?? [:]).first { key, row in
            guard key != excluding, let stored = row.values, let rowSlots = storedSlots(of: names, in: row) else { return false }
            return zip(slots, rowSlots).allSatisfy { values.slots[$0.0].sameValue(as: stored[$0.1]) }
        }?.key
    }

    /// The slots of the properties `names` in `row`, read through the row's own entity (the
    /// entities of a hierarchy number their slots differently); nil when that entity lacks one of
    /// them, as a superentity's or a sibling's row does: its value there is nil.
    private func storedSlots(of names: [String], in row: StoreRow) -> [Int]? {
        let index = Int(row.entityNumber) - 1
        guard let values = row.values, index >= 0, index < entities.count else { return nil }
        var slots: [Int] = []
        for name in names {
            guard let slot = entities[index].propertiesByName[name]?.slot, slot < values.count else { return nil }
            slots.append(slot)
        }
        return slots
    }


    func setOrder(in relationship: NSRelationshipDescription, member: NSEntityDescription, primaryKey: Int64, position: Int64) throws {
        guard let column = relationship.orderColumn else { return }
        orders[column + "/\(primaryKey)"] = position
    }

    func insertPair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws {
        guard let table = relationship.pairTable else { return }
        joins[table.name, default: []].insert(JoinPair(table, source: source, destination: destination))
    }

    func deletePair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws {
        guard let table = relationship.pairTable else { return }
        joins[table.name]?.remove(JoinPair(table, source: source, destination: destination))
        if let column = table.orderColumn { orders[InMemoryStore.pairOrderKey(column, source, destination)] = nil }
        if let column = table.inverseOrderColumn { orders[InMemoryStore.pairOrderKey(column, destination, source)] = nil }
    }

    func setPairOrder(of relationship: NSRelationshipDescription, source: Int64, destination: Int64, position: Int64) throws {
        guard let column = relationship.joinTable?.orderColumn else { return }
        orders[InMemoryStore.pairOrderKey(column, source, destination)] = position
    }

    private func checkUniqueness(entity: NSEntityDescription, primaryKey: Int64, values: RowValues) throws {
        var current: NSEntityDescription? = entity
        while let e = current {
            for constraint in e.uniquenessConstraints {
                let names = VersionHasher.constraintNames(constraint)
                let slots = names.compactMap { entity.propertiesByName[$0]?.slot }
                guard slots.count == names.count, slots.allSatisfy({ $0 < values.slots.count }) else { continue }
                // As in SQLite's UNIQUE indexes, a nil value never conflicts.
                if slots.contains(where: { values.slots[$0].isNull }) { continue }
                // The hierarchy shares one table, as in SQLite, but its entities number their
                // slots differently: each other row is read through its own entity, and a row
                // whose entity lacks a constrained property (a superentity's, a sibling's) holds
                // nil there, which never conflicts.
                for (key, other) in tables[root(entity)] ?? [:] where key != primaryKey {
                    guard let otherValues = other.values, let otherSlots = storedSlots(of: names, in: other) else { continue }
                    if zip(slots, otherSlots).allSatisfy({ values.slots[$0.0].sameValue(as: otherValues[$0.1]) }) {
                        throw UniquenessViolation(
                            entity: e, primaryKey: primaryKey, constraint: names, detail: "uniqueness constraint (\(names.joined(separator: ", "))) failed")
                    }
                }
            }
            current = e.superentity
        }
    }
}

/// A many-to-many pair, oriented from the side that owns the join table.
struct JoinPair: Hashable {
    let owner: Int64
    let other: Int64

    init(_ table: JoinTable, source: Int64, destination: Int64) {
        owner = table.isOwner ? source : destination
        other = table.isOwner ? destination : source
    }
}
