import Foundation

extension NSPersistentHistoryChangeRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator.")
        }
        let stores = affectedStores ?? coordinator.persistentStores
        // Every store must keep history: a request over a store without it fails as Core Data's.
        guard stores.allSatisfy(\.tracksPersistentHistory) else { throw NSPersistentStore.historyNotTracked() }
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
                let records = try store.fetchHistory(boundary, withChanges: withChanges)
                transactions += records.map { Self.transaction($0, in: store) }
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
    private func checkNotExpired(_ boundary: HistoryBoundary, in store: NSPersistentStore) throws {
        guard case .afterNumber(let number) = boundary, case .afterToken = selection else { return }
        let oldestKept = try store.historyRange()?.lowerBound ?? (try store.lastHistoryNumber() + 1)
        if number < oldestKept - 1 {
            throw CoreDataError.make(
                NSPersistentHistoryTokenExpiredError, "The persistent history token is no longer valid: history after it was deleted.",
                userInfo: [NSPersistentStoreURLKey: store.url as Any])
        }
    }

    /// The public transaction of a store's record, its changes with object IDs of that store.
    static func transaction(_ record: HistoryTransactionRecord, in store: NSPersistentStore) -> NSPersistentHistoryTransaction {
        let changes = record.changes?.compactMap { change -> NSPersistentHistoryChange? in
            guard let entity = store.entity(number: change.entityNumber) else { return nil }
            let id = NSManagedObjectID(entity: entity, store: store, primaryKey: change.primaryKey)
            let updated = change.changeType == .update ? change.columns.flatMap { HistoryColumnBitmap.decode($0, of: entity) } : nil
            return NSPersistentHistoryChange(
                changeID: change.changeID, changedObjectID: id, changeType: change.changeType,
                tombstone: change.tombstone.map { Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value) }) },
                updatedProperties: updated)
        }
        return NSPersistentHistoryTransaction(record: record, storeID: store.identifier, changes: changes)
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
        for store in chosen where store.tracksPersistentHistory {
            guard let number = try? store.lastHistoryNumber() else { continue }
            tokens[store.identifier] = number
        }
        return tokens.isEmpty ? nil : NSPersistentHistoryToken(storeTokens: tokens)
    }
}
