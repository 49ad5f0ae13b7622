/// How contexts reach a store: through the coordinator, which asks the store's type what it can
/// do (the contract's protocols, Stores/Contract) and answers for a store that cannot with Core
/// Data's error, in one place.
extension NSPersistentStoreCoordinator {
    /// The reading half of `store`'s contract.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: The store as a reader.
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` for a store that does not read.
    func reader(of store: NSPersistentStore) throws -> any RowReadingStore {
        guard let reader = store as? any RowReadingStore else { throw Self.unsupported("fetch requests", by: store) }
        return reader
    }

    /// The stores that hold `entity` (those whose configuration lists it), as readers: a fetch
    /// reads only these, as Core Data's does; another store has no table for the entity.
    ///
    /// - Parameters:
    ///   - entity: The fetched entity.
    ///   - stores: The request's `affectedStores`; nil for all of the coordinator's.
    /// - Returns: The readers, in the coordinator's store order.
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` for a store that does not read.
    func readers(of entity: NSEntityDescription, among stores: [NSPersistentStore]?) throws -> [any RowReadingStore] {
        let candidates = stores ?? persistentStores
        // Every store holds every entity in the usual case of one store with the default configuration.
        if candidates.count == 1, candidates[0].configurationName == "PF_DEFAULT_CONFIGURATION_NAME" {
            return [try reader(of: candidates[0])]
        }
        return try candidates.filter { $0.holds(entity) }.map { try reader(of: $0) }
    }

    /// The writing half of `store`'s contract.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: The store as a saver.
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` for a store that does not save.
    func saver(of store: NSPersistentStore) throws -> any ChangeSavingStore {
        guard let saver = store as? any ChangeSavingStore else { throw Self.unsupported("saves", by: store) }
        return saver
    }

    /// `store` as a runner of batch requests.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: The store, if it runs batch requests.
    func batchRunner(of store: NSPersistentStore) -> (any BatchRequestStore)? {
        store as? any BatchRequestStore
    }

    /// `store`'s persistent history, when the store keeps it.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: The store as a keeper of history.
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` ("No history tracking option
    ///   detected on store.") when the store was added without `NSPersistentHistoryTrackingKey`
    ///   or cannot keep history.
    func history(of store: NSPersistentStore) throws -> any HistoryTrackingStore {
        guard let history = Self.historyIfTracked(store) else { throw NSPersistentStore.historyNotTracked() }
        return history
    }

    /// `store` as a keeper of history, when it keeps history; nil otherwise.
    static func historyIfTracked(_ store: NSPersistentStore) -> (any HistoryTrackingStore)? {
        guard let history = store as? any HistoryTrackingStore, history.tracksPersistentHistory else { return nil }
        return history
    }

    /// The error for a request `store` cannot run.
    static func unsupported(_ what: String, by store: NSPersistentStore) -> NSError {
        CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "The store of type '\(store.type)' does not support \(what).")
    }
}

/// One store's share of a save: the store, and what to write in its transaction.
package struct StoreSaveShare {
    let store: NSPersistentStore
    let write: (any StoreWriter) throws -> Void
}

extension NSPersistentStoreCoordinator {
    /// Writes a save's shares, one transaction per store, each store's transaction held open
    /// until every later store has written: a share that fails rolls back every store's, so that
    /// no object is saved in one store while the save fails in another (its retry would insert
    /// it twice). The last store commits first; a commit that fails after a later store's
    /// committed (a full disk at the very end) is the one case this cannot undo.
    ///
    /// - Parameter shares: The stores' shares, in the coordinator's store order (the same order
    ///   for every save, so that two saves never wait for each other's stores crosswise).
    /// - Throws: The first error a share or its store raised, as raised (a `UniquenessViolation`
    ///   included), never what an earlier store made of it while rolling back.
    /// - Complexity: O(shares) nested transactions.
    func save(_ shares: [StoreSaveShare]) throws {
        // Every store must save before any of them writes.
        let savers = try shares.map { try saver(of: $0.store) }
        var failure: (any Error)?
        func write(from index: Int) throws {
            guard index < shares.count else { return }
            do {
                try savers[index].save { writer in
                    try shares[index].write(writer)
                    do {
                        try write(from: index + 1)
                    } catch {
                        if failure == nil { failure = error }
                        throw error
                    }
                }
            } catch {
                // A store's save may wrap what its body threw; the caller gets the original.
                throw failure ?? error
            }
        }
        try write(from: 0)
    }
}
