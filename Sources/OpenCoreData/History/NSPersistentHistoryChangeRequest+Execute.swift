import Foundation

extension NSPersistentHistoryChangeRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        // Every store must keep history: a request over a store without it fails as Core Data's.
        let stores = try (affectedStores ?? coordinator.persistentStores).map { try coordinator.history(of: $0) }
        switch operation {
        case .delete:
            var deleted = 0
            for store in stores {
                guard let boundary = boundary(in: store.identifier) else { continue }
                deleted += try store.deleteHistory(boundary)
            }
            return NSPersistentHistoryResult(
                result: resultType == .count ? NSNumber(value: deleted) : NSNumber(value: true), resultType: resultType)
        case .fetch:
            var transactions: [NSPersistentHistoryTransaction] = []
            let selectsChanges = fetchRequest?.entityName == HistoryEntities.change.name
            let withChanges = selectsChanges || (resultType != .transactionsOnly && resultType != .count && resultType != .statusOnly)
            for store in stores {
                guard let boundary = boundary(in: store.identifier) else { continue }
                try checkNotExpired(boundary, in: store)
                var decoder = HistoryChangeDecoder(store: store)
                let records = try store.fetchHistory(boundary, withChanges: withChanges) { decoder.add($1, toTransactionAt: $0) }
                transactions += decoder.transactions(of: records, withChanges: withChanges)
            }
            if let predicate = fetchRequest?.predicate {
                transactions = Self.select(transactions, matching: predicate, byChange: selectsChanges)
            }
            if selectsChanges, resultType == .transactionsOnly {
                transactions = transactions.map { NSPersistentHistoryTransaction(copying: $0, changes: nil) }
            }
            return NSPersistentHistoryResult(result: result(of: transactions), resultType: resultType)
        }
    }

    private func result(of transactions: [NSPersistentHistoryTransaction]) -> Any {
        switch resultType {
        case .statusOnly: return NSNumber(value: true)
        case .count: return NSNumber(value: transactions.count)
        case .transactionsOnly, .transactionsAndChanges: return transactions
        case .changesOnly: return transactions.flatMap { $0.changes ?? [] }
        case .objectIDs:
            var seen = Set<NSManagedObjectID>()
            return transactions.flatMap { $0.changes ?? [] }.map(\.changedObjectID).filter { seen.insert($0).inserted }
        }
    }

    /// The transactions a predicate on the transaction entity matches, or, on the change entity,
    /// the transactions holding changes it matches, with those changes only. Evaluated in memory
    /// on the transactions the boundary selected (docs/compatibility.md).
    private static func select(
        _ transactions: [NSPersistentHistoryTransaction], matching predicate: NSPredicate, byChange: Bool
    ) -> [NSPersistentHistoryTransaction] {
        guard byChange else { return transactions.filter { predicate.evaluate(with: HistoryEntities.values(of: $0)) } }
        return transactions.compactMap { transaction in
            let values = HistoryEntities.values(of: transaction)
            let changes = (transaction.changes ?? []).filter { predicate.evaluate(with: HistoryEntities.values(of: $0, in: values)) }
            guard !changes.isEmpty else { return nil }
            return changes.count == transaction.changes?.count ? transaction : NSPersistentHistoryTransaction(copying: transaction, changes: changes)
        }
    }

    /// A token is expired when history after it was deleted: the transactions that followed it
    /// are gone, so reading "after" it would silently skip them.
    private func checkNotExpired(_ boundary: HistoryBoundary, in store: any HistoryTrackingStore) throws {
        guard case .afterNumber(let number) = boundary, case .afterToken = selection else { return }
        let oldestKept = try store.historyRange()?.lowerBound ?? (try store.lastHistoryNumber() + 1)
        if number < oldestKept - 1 {
            throw CoreDataError.make(
                NSPersistentHistoryTokenExpiredError, "The persistent history token is no longer valid: history after it was deleted.",
                userInfo: [NSPersistentStoreURLKey: store.url as Any])
        }
    }
}

/// Turns a store's change records into public changes as the store reads them, looking each
/// entity up once and decoding each distinct bitmap of an entity once: a transaction's changes
/// are mostly of a few entities with the same changed properties, and a bitmap's decoding sorts
/// the entity's properties.
struct HistoryChangeDecoder {
    let store: NSPersistentStore
    private var lastEntity: (number: Int32, entity: NSEntityDescription?)?
    private var bitmaps: [BitmapKey: Set<NSPropertyDescription>?] = [:]
    /// By a transaction's position in the store's result: the link its changes reach it through
    /// once it is made, and its changes so far.
    private var pending: [(link: HistoryTransactionLink, changes: [NSPersistentHistoryChange])] = []

    private struct BitmapKey: Hashable {
        let entity: ObjectIdentifier
        let bitmap: Data
    }

    init(store: NSPersistentStore) { self.store = store }

    /// Adds the change `record` describes (none when its entity is not the model's) to the
    /// transaction at `position` of the store's result.
    mutating func add(_ record: HistoryChangeRecord, toTransactionAt position: Int) {
        while pending.count <= position { pending.append((HistoryTransactionLink(), [])) }
        if let change = change(of: record, link: pending[position].link) { pending[position].changes.append(change) }
    }

    /// The transactions of the store's result, with the changes added to them when `withChanges`.
    func transactions(of records: [HistoryTransactionRecord], withChanges: Bool) -> [NSPersistentHistoryTransaction] {
        records.indices.map { position in
            let (link, changes) = position < pending.count ? pending[position] : (HistoryTransactionLink(), [])
            return NSPersistentHistoryTransaction(
                record: records[position], storeID: store.identifier, changes: withChanges ? changes : nil, link: link)
        }
    }

    private mutating func change(of record: HistoryChangeRecord, link: HistoryTransactionLink) -> NSPersistentHistoryChange? {
        if lastEntity?.number != record.entityNumber { lastEntity = (record.entityNumber, store.entity(number: record.entityNumber)) }
        guard let entity = lastEntity!.entity else { return nil }
        let id = NSManagedObjectID(entity: entity, store: store, primaryKey: record.primaryKey)
        var updated: Set<NSPropertyDescription>?
        if record.changeType == .update, let bitmap = record.columns {
            let key = BitmapKey(entity: ObjectIdentifier(entity), bitmap: bitmap)
            if let decoded = bitmaps[key] {
                updated = decoded
            } else {
                updated = HistoryColumnBitmap.decode(bitmap, of: entity)
                bitmaps[key] = .some(updated)
            }
        }
        return NSPersistentHistoryChange(
            changeID: record.changeID, changedObjectID: id, changeType: record.changeType,
            tombstone: record.tombstone.map { Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value) }) },
            updatedProperties: updated, link: link)
    }
}

extension NSPersistentStoreCoordinator {
    /// The token that marks the persistent history of `stores` as it is now: a history request
    /// after it returns only what is written later.
    ///
    /// - Parameter stores: The stores the token covers; nil or empty for every store that keeps
    ///   history.
    /// - Returns: The token, or nil when none of the stores keeps history.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let chosen = (stores?.isEmpty == false ? stores!.compactMap { $0 as? NSPersistentStore } : persistentStores)
        var tokens: [String: Int64] = [:]
        for store in chosen {
            guard let history = Self.historyIfTracked(store), let number = try? history.lastHistoryNumber() else { continue }
            tokens[store.identifier] = number
        }
        return tokens.isEmpty ? nil : NSPersistentHistoryToken(storeTokens: tokens)
    }
}
