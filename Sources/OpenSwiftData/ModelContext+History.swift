import Foundation
import OpenCoreData

extension ModelContext {
    /// The transactions of the container's stores that `descriptor` selects, read from the
    /// history tables every save writes.
    ///
    /// - Parameter descriptor: Which transactions (the predicate is evaluated on each), in which
    ///   order (the stores' order when none is given), how many.
    /// - Returns: The transactions, each with its changes.
    /// - Throws: Store errors; what the predicate throws.
    /// - Complexity: O(n) in the history's transactions and changes.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        var transactions = try historyTransactions().compactMap { $0 as? T }
        if let predicate = descriptor.predicate { transactions = try transactions.filter { try predicate.evaluate($0) } }
        if !descriptor.sortBy.isEmpty { transactions.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit, limit >= 0 { transactions = Array(transactions.prefix(limit)) }
        return transactions
    }

    /// Deletes the transactions `descriptor` selects, with every earlier one of their stores:
    /// a store's history is deleted from its start, as Core Data deletes it.
    ///
    /// - Parameter descriptor: Which transactions.
    /// - Throws: Store errors; what the predicate throws.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        var newest: [String: Int64] = [:]
        for transaction in try fetchHistory(descriptor) {
            for (store, number) in transaction.token.storeTokens { newest[store] = max(newest[store] ?? 0, number) }
        }
        for (store, number) in newest {
            let keep = NSPersistentHistoryToken(transactionNumber: number + 1, storeID: store)
            _ = try objectContext.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: keep))
        }
    }

    private func historyTransactions() throws -> [DefaultHistoryTransaction] {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        let result = try objectContext.execute(request) as? NSPersistentHistoryResult
        let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
        return transactions.map { transaction in
            DefaultHistoryTransaction(
                transactionIdentifier: transaction.transactionNumber, token: DefaultHistoryToken(transaction.token),
                changes: (transaction.changes ?? []).compactMap(Self.change(of:)), timestamp: transaction.timestamp,
                author: transaction.author, bundleIdentifier: transaction.bundleID, processIdentifier: transaction.processID,
                storeIdentifier: transaction.storeID)
        }
    }

    private static func change(of change: NSPersistentHistoryChange) -> HistoryChange? {
        guard let type = SchemaRegistry.type(of: change.changedObjectID.entity) else { return nil }
        return Self.change(change, of: type)
    }

    private static func change<Model: PersistentModel>(_ change: NSPersistentHistoryChange, of type: Model.Type) -> HistoryChange? {
        let id = PersistentIdentifier(change.changedObjectID)
        let transaction = change.transaction?.transactionNumber ?? 0
        switch change.changeType {
        case .insert:
            return .insert(DefaultHistoryInsert<Model>(changedPersistentIdentifier: id, changeIdentifier: change.changeID, transactionIdentifier: transaction))
        case .update:
            let names = Set((change.updatedProperties ?? []).map(\.name))
            let keyPaths = Model.schemaMetadata.filter { names.contains($0.name) }.compactMap { $0.keypath as? PartialKeyPath<Model> }
            return .update(
                DefaultHistoryUpdate<Model>(
                    changedPersistentIdentifier: id, changeIdentifier: change.changeID, transactionIdentifier: transaction, updatedAttributes: keyPaths))
        case .delete:
            var values: [String: Any] = [:]
            for (key, value) in change.tombstone ?? [:] { if let key = key as? String { values[key] = value } }
            return .delete(
                DefaultHistoryDelete<Model>(
                    changedPersistentIdentifier: id, changeIdentifier: change.changeID, transactionIdentifier: transaction,
                    tombstone: HistoryTombstone(values: values)))
        }
    }
}
