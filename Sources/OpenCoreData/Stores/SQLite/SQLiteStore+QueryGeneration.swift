import GRDB

/// Query generations on the SQLite store: a pinned generation is a GRDB snapshot, a connection
/// whose read transaction stays open on the state of the write-ahead log when it began.
extension SQLiteStore: SnapshotReadingStore {
    func makeReadSnapshot() throws -> any StoreReadSnapshot {
        guard let pool else { throw CoreDataError.make(NSPersistentStoreOperationError, "The store is closed.") }
        do {
            return SQLiteReadSnapshot(snapshot: try pool.makeSnapshot())
        } catch let error as DatabaseError {
            throw SQLiteFileCheck.operationError(error, path: url!.path, timeout: Self.timeout(in: options))
        }
    }

    /// The snapshot the running read must see: the pinned generation's, when the context reading
    /// is pinned to one holding this store.
    var pinnedSnapshot: DatabaseSnapshot? {
        (QueryGenerationScope.token?.snapshot(of: self) as? SQLiteReadSnapshot)?.snapshot
    }
}

/// A pinned generation of one SQLite store.
final class SQLiteReadSnapshot: StoreReadSnapshot {
    let snapshot: DatabaseSnapshot

    init(snapshot: DatabaseSnapshot) { self.snapshot = snapshot }
}
