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
            return candidates[0] is any RequestExecutingStore ? [] : [try reader(of: candidates[0])]
        }
        return try candidates.filter { $0.holds(entity) && !($0 is any RequestExecutingStore) }.map { try reader(of: $0) }
    }

    /// The stores that hold `entity` and run requests themselves (custom stores): a fetch hands
    /// them the request rather than asking for rows.
    ///
    /// - Parameters:
    ///   - entity: The fetched entity.
    ///   - stores: The request's `affectedStores`; nil for all of the coordinator's.
    /// - Returns: Those stores, in the coordinator's store order.
    func executors(of entity: NSEntityDescription, among stores: [NSPersistentStore]?) -> [any RequestExecutingStore] {
        (stores ?? persistentStores).compactMap { store in
            guard let executor = store as? any RequestExecutingStore, store.holds(entity) else { return nil }
            return executor
        }
    }

    /// `store` as a store that runs requests itself, if it is one.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: The store, or nil for a store the context reads rows from.
    func executor(of store: NSPersistentStore) -> (any RequestExecutingStore)? {
        store as? any RequestExecutingStore
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

/// One store's share of a save: the store, and what to write in its transaction (or, for a
/// store that runs requests itself, the request to run).
struct StoreSaveShare {
    enum Work {
        /// Rows written through the store's writer, inside its transaction.
        case rows((any StoreWriter) throws -> Void)
        /// A save request the store runs itself (a custom store: no transaction to hold open).
        case request(() throws -> Void)
    }

    let store: NSPersistentStore
    let work: Work
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
        var transactional: [(saver: any ChangeSavingStore, write: (any StoreWriter) throws -> Void)] = []
        var requests: [() throws -> Void] = []
        for share in shares {
            switch share.work {
            case .rows(let write): transactional.append((try saver(of: share.store), write))
            case .request(let run): requests.append(run)
            }
        }
        var failure: (any Error)?
        func write(from index: Int) throws {
            // Stores that run their own save request have no transaction to hold open: they run
            // innermost, while every transactional store's is still open, so that their failure
            // rolls the others back.
            guard index < transactional.count else {
                for run in requests { try run() }
                return
            }
            do {
                try transactional[index].saver.save { writer in
                    try transactional[index].write(writer)
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
