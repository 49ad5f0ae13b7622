import GRDB

/// The SQLite store's side of the coordinator's file operations (`destroyPersistentStore`,
/// `replacePersistentStore`, `migratePersistentStore`): SQLite's own locking and copying, never a
/// plain file copy or unlink, so that the write-ahead log and other connections are respected.
enum SQLiteStoreFiles {
    /// Empties the store at `url` in place, as Core Data's destroy does for SQLite ("it is not
    /// possible to unlink a database file safely out from underneath another process, so this
    /// performs a truncation"): every table, index and trigger is dropped in one exclusive
    /// transaction, the file is vacuumed and the log checkpointed. The file stays, as an empty
    /// SQLite database, which the next `addPersistentStore` takes as a new store.
    ///
    /// - Throws: Core Data's error for a file that is not a SQLite database or cannot be written.
    static func destroyStore(at url: URL) throws {
        // An in-memory store keeps nothing to destroy, and the device is not a file.
        if SQLiteStore.isNullDevice(url) { return }
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard SQLiteFileCheck.hasContent(atPath: path) else { return }
        do {
            var config = Configuration()
            config.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
                do {
                    let objects = try Row.fetchAll(
                        db, sql: "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view', 'trigger')")
                    for object in objects {
                        let type: String = object["type"]
                        let name: String = object["name"]
                        try db.execute(sql: "DROP \(type.uppercased()) IF EXISTS \(name.quotedDatabaseIdentifier)")
                    }
                    try db.execute(sql: "COMMIT TRANSACTION")
                } catch {
                    try? db.execute(sql: "ROLLBACK TRANSACTION")
                    throw error
                }
                try db.execute(sql: "VACUUM")
                if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" { try db.checkpoint(.truncate) }
            }
        } catch {
            throw SQLiteFileCheck.coreDataError(error, path: path)
        }
        // The files of external binary values go with the rows that named them.
        try? FileManager.default.removeItem(at: SQLiteExternalData.supportFolder(forStoreAt: url))
    }

    /// Copies the store at `source` over `destination` through SQLite's backup, which reads a
    /// consistent snapshot (the log included) and writes under the destination's locks; the
    /// destination is created if it does not exist.
    ///
    /// - Throws: `NSFileReadNoSuchFileError` when `source` does not exist,
    ///   `NSFileReadCorruptFileError` when it is not a Core Data store, Core Data's error when the
    ///   destination cannot be written.
    static func replaceStore(at destination: URL, withStoreFrom source: URL) throws {
        // Nothing is kept at /dev/null; the device itself must not be written over.
        if SQLiteStore.isNullDevice(destination) { return }
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw CoreDataError.make(
                NSFileReadNoSuchFileError, "There is no store at \(source.path) to copy.", userInfo: [NSFilePathErrorKey: source.path])
        }
        _ = try SQLiteFileCheck.readMetadata(atPath: source.path)
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(10)
            let from = try DatabaseQueue(path: source.path, configuration: readOnly)
            defer { try? from.close() }
            try copy(from, toFileAt: destination)
            try SQLiteExternalData.copyFolder(from: source, to: destination)
        } catch {
            throw SQLiteFileCheck.coreDataError(error, path: destination.path)
        }
    }

    /// Renames the migrated store file at `source` over the store at `destination`. Both are
    /// closed, so each is its file alone (SQLite folds the log into the file and deletes it when
    /// the last connection closes); a log still beside either means another connection has it
    /// open, and nothing is moved. rename(2) replaces the file atomically: after a crash the path
    /// holds the old store or the new one, whole.
    ///
    /// - Throws: `NSPersistentStoreOperationError` when a log remains or the rename fails.
    static func install(migrated source: URL, at destination: URL) throws {
        if SQLiteStore.isNullDevice(destination) {
            // Never renamed over the device: an in-memory store keeps nothing anyway.
            SQLiteFileCheck.removeStoreFiles(atPath: source.path)
            return
        }
        for path in [source.path, destination.path] {
            let log = path + "-wal"
            let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? nil
            if let size, size > 0 {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError, "The store at \(path) is open elsewhere (its log is not empty); the migrated store was not installed.",
                    userInfo: [NSFilePathErrorKey: path])
            }
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination.path + suffix) }
        guard rename(source.path, destination.path) == 0 else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "The migrated store could not replace \(destination.path) (errno \(errno)).",
                userInfo: [NSFilePathErrorKey: destination.path])
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: source.path + suffix) }
    }

    /// Copies the open store into a new file at `destination` with a store UUID of its own, for
    /// `migratePersistentStore`.
    ///
    /// - Throws: `NSPersistentStoreOperationError` when `destination` already holds data, Core
    ///   Data's error when it cannot be written.
    static func copy(_ store: SQLiteStore, forMigrationTo destination: URL) throws {
        if SQLiteStore.isNullDevice(destination) {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "A store can't be migrated into memory (/dev/null); add a new store there instead.",
                userInfo: [NSFilePathErrorKey: destination.path])
        }
        if SQLiteFileCheck.hasContent(atPath: destination.path) {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "The store can't be migrated to \(destination.path): a file is already there.",
                userInfo: [NSFilePathErrorKey: destination.path])
        }
        guard let pool = store.pool else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store at \(store.url?.path ?? "?") is closed.")
        }
        do {
            try copy(pool, toFileAt: destination)
            if let source = store.fileURL { try SQLiteExternalData.copyFolder(from: source, to: destination) }
            var config = Configuration()
            config.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: destination.path, configuration: config)
            defer { try? queue.close() }
            try queue.write { db in
                guard let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") else { return }
                let uuid = UUID().uuidString
                var metadata = try StoreMetadata.decode(plist: plist, uuid: uuid)
                metadata[NSStoreUUIDKey] = uuid
                try db.execute(
                    sql: "UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1",
                    arguments: [uuid, try StoreMetadata.encode(metadata)])
            }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            SQLiteFileCheck.removeStoreFiles(atPath: destination.path)
            throw error
        } catch {
            SQLiteFileCheck.removeStoreFiles(atPath: destination.path)
            throw SQLiteFileCheck.coreDataError(error, path: destination.path)
        }
    }

    /// SQLite's backup of `source` into the file at `destination`, then the destination's log
    /// folded into its file, so that the file alone is the whole store.
    private static func copy(_ source: some DatabaseReader, toFileAt destination: URL) throws {
        var config = Configuration()
        config.busyMode = .timeout(10)
        let to = try DatabaseQueue(path: destination.path, configuration: config)
        defer { try? to.close() }
        try source.backup(to: to)
        try to.writeWithoutTransaction { db in
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" { try db.checkpoint(.truncate) }
        }
    }
}
