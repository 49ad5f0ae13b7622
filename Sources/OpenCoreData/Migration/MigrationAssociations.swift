/// Which destination instance each entity mapping made from which source instance, both ways, in
/// the order they were made.
///
/// Pairs whose destination is not saved yet are kept as objects. Once the migration has saved a
/// batch, its pairs are kept as the two rows' keys instead (`KeyPairRuns`: usually a few entries
/// for the whole store), so that the relationship pass of a migration of a million objects finds
/// them without holding a million objects: the objects are made again, as faults, when asked for.
final class MigrationAssociations {
    private let sourceContext: NSManagedObjectContext
    private let destinationContext: NSManagedObjectContext
    private var tables: [String: Table] = [:]
    /// The entities of the keys kept, by the number a key holds in its top 16 bits.
    private var entities: [NSEntityDescription] = []
    private var entityNumbers: [ObjectIdentifier: UInt64] = [:]
    /// The store each side's keys are of: a migration reads one store and writes one.
    private var sourceStore: NSPersistentStore?
    private var destinationStore: NSPersistentStore?

    init(sourceContext: NSManagedObjectContext, destinationContext: NSManagedObjectContext) {
        self.sourceContext = sourceContext
        self.destinationContext = destinationContext
    }

    /// One entity mapping's pairs.
    private final class Table {
        /// Saved pairs, in the order they were made.
        var saved = KeyPairRuns()
        /// Pairs not saved yet, after the saved ones.
        var pending: [(source: NSManagedObject, destination: NSManagedObject)] = []
        var pendingBySource: [ObjectIdentifier: [Int]] = [:]
        var pendingByDestination: [ObjectIdentifier: [Int]] = [:]

        var count: Int { saved.count + pending.count }
    }

    private func table(_ mapping: String) -> Table {
        if let table = tables[mapping] { return table }
        let table = Table()
        tables[mapping] = table
        return table
    }

    func add(source: NSManagedObject, destination: NSManagedObject, mapping: String) {
        let table = table(mapping)
        table.pendingBySource[ObjectIdentifier(source), default: []].append(table.pending.count)
        table.pendingByDestination[ObjectIdentifier(destination), default: []].append(table.pending.count)
        table.pending.append((source, destination))
    }

    /// How many pairs mapping `mapping` made.
    func count(ofMapping mapping: String) -> Int { tables[mapping]?.count ?? 0 }

    /// The destination instances of pairs `range` of mapping `mapping`, in the order they were made.
    func destinations(ofMapping mapping: String, in range: Range<Int>) -> [NSManagedObject] {
        guard let table = tables[mapping] else { return [] }
        return range.map { index in
            index < table.saved.count
                ? object(table.saved.pair(at: index).destination, in: destinationContext, store: destinationStore)
                : table.pending[index - table.saved.count].destination
        }
    }

    /// The source instances of every pair mapping `mapping` made, in the order they were made.
    func sources(ofMapping mapping: String) -> [NSManagedObject] {
        guard let table = tables[mapping] else { return [] }
        return (0..<table.saved.count).map { object(table.saved.pair(at: $0).source, in: sourceContext, store: sourceStore) }
            + table.pending.map(\.source)
    }

    func destinations(ofMapping mapping: String) -> [NSManagedObject] { destinations(ofMapping: mapping, in: 0..<count(ofMapping: mapping)) }

    func destinations(of source: NSManagedObject, mapping: String) -> [NSManagedObject] {
        guard let table = tables[mapping] else { return [] }
        var found: [NSManagedObject] = []
        if table.saved.count > 0, let key = key(of: source, store: sourceStore) {
            found = table.saved.destinations(ofSource: key).map { object($0, in: destinationContext, store: destinationStore) }
        }
        for index in table.pendingBySource[ObjectIdentifier(source)] ?? [] { found.append(table.pending[index].destination) }
        return found
    }

    func sources(of destination: NSManagedObject, mapping: String) -> [NSManagedObject] {
        guard let table = tables[mapping] else { return [] }
        var found: [NSManagedObject] = []
        if table.saved.count > 0, let key = key(of: destination, store: destinationStore) {
            found = table.saved.sources(ofDestination: key).map { object($0, in: sourceContext, store: sourceStore) }
        }
        for index in table.pendingByDestination[ObjectIdentifier(destination)] ?? [] { found.append(table.pending[index].source) }
        return found
    }

    /// Keeps the pairs whose destination the last save wrote as keys, and lets go of their objects.
    /// Called right after the destination context saved.
    func keepSaved() {
        for (mapping, table) in tables where !table.pending.isEmpty {
            var still: [(source: NSManagedObject, destination: NSManagedObject)] = []
            for (source, destination) in table.pending {
                if sourceStore == nil { sourceStore = source.objectID.persistentStore }
                if destinationStore == nil { destinationStore = destination.objectID.persistentStore }
                guard let sourceKey = key(of: source, store: sourceStore), let destinationKey = key(of: destination, store: destinationStore) else {
                    // Not in the store (a policy's own object, say): kept as it is.
                    still.append((source, destination))
                    continue
                }
                table.saved.append(source: sourceKey, destination: destinationKey)
            }
            table.pending = []
            table.pendingBySource = [:]
            table.pendingByDestination = [:]
            for (source, destination) in still { add(source: source, destination: destination, mapping: mapping) }
        }
    }

    /// An object's key: its entity's number in the top 16 bits, its primary key below. Nil for
    /// an object not saved in `store`, or with a key too large to share the word.
    private func key(of object: NSManagedObject, store: NSPersistentStore?) -> UInt64? {
        let id = object.objectID
        guard !id.isTemporaryID, id.primaryKey > 0, id.primaryKey < 1 << 48, let store, id.persistentStore === store else { return nil }
        let entity = id.entity
        let number: UInt64
        if let known = entityNumbers[ObjectIdentifier(entity)] {
            number = known
        } else {
            guard entities.count < 1 << 16 else { return nil }
            number = UInt64(entities.count)
            entities.append(entity)
            entityNumbers[ObjectIdentifier(entity)] = number
        }
        return number << 48 | UInt64(id.primaryKey)
    }

    private func object(_ key: UInt64, in context: NSManagedObjectContext, store: NSPersistentStore?) -> NSManagedObject {
        // A key is only made for an object of `store`, so the store is known here.
        context.object(with: NSManagedObjectID(entity: entities[Int(key >> 48)], store: store!, primaryKey: Int64(key & ((1 << 48) - 1))))
    }
}
