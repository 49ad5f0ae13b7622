import Foundation

extension NSManagedObjectContext {
    /// The token of the generation this context reads: nil when it reads the stores as they are
    /// now, `NSQueryGenerationToken.current` until its first read after being pinned to the
    /// current generation, then the token of the generation that read pinned.
    public var queryGenerationToken: NSQueryGenerationToken? {
        switch queryGeneration {
        case .unpinned: nil
        case .pinsOnNextRead: .current
        case .pinned(let token): token
        }
    }

    /// Sets the generation this context reads.
    ///
    /// With `NSQueryGenerationToken.current`, the context's next read pins the generation current
    /// then: from it on, fetches, counts and faults see the stores as they were, whatever other
    /// contexts and processes save, until the context saves, merges a save, is reset or is given
    /// another generation (each of which moves it to the generation current at its next read).
    /// With another context's `queryGenerationToken`, it reads that context's generation. With
    /// nil, it reads the stores as they are now.
    ///
    /// - Parameter generation: `.current`, a token a context of this coordinator holds, or nil.
    /// - Throws: `NSPersistentStoreOperationError` (134070) for a token of another coordinator's
    ///   stores; the store's error when the current generation cannot be kept.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        guard let generation else {
            queryGeneration = .unpinned
            return
        }
        guard let snapshots = generation.snapshots else {
            queryGeneration = .pinsOnNextRead
            return
        }
        let stores = Set((persistentStoreCoordinator?.persistentStores ?? []).map(ObjectIdentifier.init))
        guard snapshots.keys.allSatisfy(stores.contains) else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "The query generation token \(generation) is not of this context's persistent stores.")
        }
        queryGeneration = .pinned(generation)
    }

    /// After a save, a merge or a reset: a pinned context reads the generation current at its
    /// next read.
    func advanceQueryGeneration() {
        if case .pinned = queryGeneration { queryGeneration = .pinsOnNextRead }
    }

    /// The generation this context's reads see now, pinning the current one on the first read
    /// after `.current`; nil when the context reads the stores as they are, or when the running
    /// operation already reads in its generation.
    ///
    /// - Throws: The store's error when the current generation cannot be kept.
    func generationToEnter() throws -> NSQueryGenerationToken? {
        let token: NSQueryGenerationToken
        switch queryGeneration {
        case .unpinned:
            return nil
        case .pinned(let pinned):
            token = pinned
        case .pinsOnNextRead:
            guard let coordinator = persistentStoreCoordinator else { return nil }
            token = try coordinator.currentQueryGeneration()
            queryGeneration = .pinned(token)
        }
        return QueryGenerationScope.token === token ? nil : token
    }

    /// `body` in this context's generation.
    ///
    /// - Throws: What `body` throws; the store's error when the current generation cannot be kept.
    func readingQueryGeneration<T>(_ body: () throws -> T) throws -> T {
        guard parent == nil, let token = try generationToEnter() else { return try body() }
        return try QueryGenerationScope.$token.withValue(token, operation: body)
    }
}

extension NSPersistentStoreCoordinator {
    /// A token holding the current state of every store that keeps generations.
    ///
    /// - Throws: A store's error when it cannot keep its state.
    func currentQueryGeneration() throws -> NSQueryGenerationToken {
        var snapshots: [ObjectIdentifier: any StoreReadSnapshot] = [:]
        for store in persistentStores {
            if let keeping = store as? any SnapshotReadingStore { snapshots[ObjectIdentifier(store)] = try keeping.makeReadSnapshot() }
        }
        return NSQueryGenerationToken(snapshots: snapshots)
    }
}
