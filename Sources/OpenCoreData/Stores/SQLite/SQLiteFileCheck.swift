import GRDB

/// Looks at a store file before anything opens it for writing, so that a foreign, corrupt or
/// incompatible file is refused without a byte of it changing.
enum SQLiteFileCheck {
    static func hasContent(atPath path: String) -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return size > 0
    }

    /// Whether the file at `path` is a SQLite database with nothing in it: no table, index, view
    /// or trigger. Such a file (left by `destroyPersistentStore`, or by a process killed while it
    /// created the store) is taken as a new store rather than refused for its missing metadata.
    static func isEmptyDatabase(atPath path: String, timeout: Double = 0) -> Bool {
        guard mayBeDatabase(atPath: path) else { return false }
        let objects = try? reading(path, timeout: timeout) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        return objects == 0
    }

    /// Whether the file at `path` may be a SQLite database: its header says so, or its first
    /// bytes are zero and a write-ahead log is beside it.
    ///
    /// A checkpoint (SQLite folding the log into the file) first grows the file to its new size,
    /// then writes the pages: a process killed in between leaves a file whose first page is
    /// zeros, while the log still holds every page. SQLite reads them from the log, as the open
    /// that follows will (reading it folds the log in); refusing the file for its header made a
    /// store whose creation was cut short there unusable.
    private static func mayBeDatabase(atPath path: String) -> Bool {
        let header = Data(SQLiteFileHeader.read(path, count: 16) ?? [])
        if header == Data("SQLite format 3\0".utf8) { return true }
        return header.count == 16 && header.allSatisfy { $0 == 0 } && SQLiteWriteAheadLog.holdsFirstPage(logAt: path + "-wal")
    }

    /// Runs `body` on a read-only connection to the file at `path`. A process killed while it
    /// wrote leaves a write-ahead log or a hot rollback journal that only a writer can recover (a
    /// read-only connection gets `SQLITE_READONLY_RECOVERY`, `_CANTINIT` or `_ROLLBACK`): then,
    /// and only when such a file is beside it, the read is retried on a read-write connection,
    /// which recovers it, as the open that follows would.
    private static func reading<T>(_ path: String, timeout: Double, _ body: (Database) throws -> T) throws -> T {
        var config = Configuration()
        config.readonly = true
        // Another process may be writing (or creating) the store: wait for it as a save would.
        if timeout > 0 { config.busyMode = .timeout(timeout) }
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            return try queue.read(body)
        } catch let error as DatabaseError
            where (error.resultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_CANTOPEN)
            && ["-wal", "-shm", "-journal"].contains(where: { FileManager.default.fileExists(atPath: path + $0) })
            && FileManager.default.isWritableFile(atPath: path)
        {
            config.readonly = false
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            return try queue.read(body)
        }
    }

    /// Reads Z_METADATA through a read-only connection.
    ///
    /// - Throws: `NSFileReadCorruptFileError` (259) when the file is not a SQLite database or not a
    ///   Core Data store, with `NSSQLiteErrorDomain` set to SQLite's code where SQLite gave one.
    static func readMetadata(atPath path: String, timeout: Double = 0) throws -> (metadata: [String: Any], uuid: String) {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CoreDataError.make(
                NSFileReadNoPermissionError, "The store file at \(path) can't be read.",
                userInfo: [NSFilePathErrorKey: path])
        }
        guard mayBeDatabase(atPath: path) else {
            throw notAStore(path, reason: "it is not a SQLite database", sqliteCode: 26)
        }
        do {
            return try reading(path, timeout: timeout) { db in
                guard try db.tableExists("Z_METADATA"), try db.tableExists("Z_PRIMARYKEY") else {
                    throw notAStore(path, reason: "it has no Core Data metadata (Z_METADATA)", sqliteCode: nil)
                }
                guard let (plist, uuid) = try SQLiteMetadata.row(in: db) else {
                    throw notAStore(path, reason: "its Z_METADATA table is empty", sqliteCode: nil)
                }
                do {
                    return (try StoreMetadata.decode(plist: plist, uuid: uuid), uuid)
                } catch {
                    throw notAStore(path, reason: "its metadata is not a property list", sqliteCode: nil)
                }
            }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw coreDataError(error, path: path)
        }
    }

    /// The content of the store's model cache (`Z_MODELCACHE`), or nil when it has none or can't
    /// be read.
    static func readModelCache(atPath path: String, timeout: Double = 0) -> Data? {
        try? reading(path, timeout: timeout) { db in
            guard try db.tableExists("Z_MODELCACHE") else { return nil }
            return try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
        }
    }

    static func checkCreatable(path: String, readOnly: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CoreDataError.make(
                NSFileNoSuchFileError, "Can't create a store at \(path): the folder \(directory) does not exist.",
                userInfo: [NSFilePathErrorKey: path])
        }
        if readOnly {
            throw CoreDataError.make(
                NSFileNoSuchFileError, "There is no store at \(path) to open read-only.", userInfo: [NSFilePathErrorKey: path])
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw CoreDataError.make(
                NSFileWriteNoPermissionError, "Can't create a store at \(path): the folder is not writable.",
                userInfo: [NSFilePathErrorKey: path])
        }
    }

    static func removeStoreFiles(atPath path: String) {
        // Never the device an in-memory store is named by (run as root, that would remove it).
        if SQLiteStore.isNullDevice(URL(fileURLWithPath: path)) { return }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Core Data's error for a SQLite failure while reading or writing an open store: a lock
    /// another connection held past the timeout is `NSPersistentStoreTimeoutError` (134090), a
    /// damaged file `NSFileReadCorruptFileError` (259), anything else `NSSQLiteError` (134180), with
    /// SQLite's code under `NSSQLiteErrorDomain`.
    static func operationError(_ error: DatabaseError, path: String, timeout: TimeInterval) -> NSError {
        let code = error.resultCode
        if code == .SQLITE_CORRUPT || code == .SQLITE_NOTADB {
            return CoreDataError.make(
                NSFileReadCorruptFileError, "The store at \(path) is damaged: \(error.message ?? "SQLite error \(code.rawValue)").",
                userInfo: [NSFilePathErrorKey: path, NSSQLiteErrorDomain: Int(code.rawValue)])
        }
        if code == .SQLITE_BUSY || code == .SQLITE_LOCKED {
            return CoreDataError.make(
                NSPersistentStoreTimeoutError,
                "The store at \(path) is locked by another connection or process; waited \(Int(timeout)) s (NSPersistentStoreTimeoutOption).",
                userInfo: [NSFilePathErrorKey: path, NSSQLiteErrorDomain: Int(error.extendedResultCode.rawValue)])
        }
        return CoreDataError.make(
            NSSQLiteError, "SQLite error \(code.rawValue) on the store at \(path): \(error.message ?? "")",
            userInfo: [NSFilePathErrorKey: path, NSSQLiteErrorDomain: Int(error.extendedResultCode.rawValue)])
    }

    /// Core Data's error for a SQLite failure while opening or copying a store: corrupt and foreign
    /// files are 259 with the SQLite code in `NSSQLiteErrorDomain`; anything else is
    /// `NSSQLiteError` (134180).
    static func coreDataError(_ error: Error, path: String) -> NSError {
        if let error = error as NSError?, error.domain == NSCocoaErrorDomain { return error }
        guard let dbError = error as? DatabaseError else {
            return CoreDataError.make(NSPersistentStoreOpenError, "Can't open the store at \(path): \(error)", userInfo: [NSFilePathErrorKey: path])
        }
        let code = dbError.resultCode
        if code == .SQLITE_CORRUPT || code == .SQLITE_NOTADB {
            return notAStore(path, reason: "it is corrupt (\(dbError.message ?? "SQLite error"))", sqliteCode: Int(code.rawValue))
        }
        if code == .SQLITE_CANTOPEN || code == .SQLITE_PERM || code == .SQLITE_READONLY {
            return CoreDataError.make(
                NSPersistentStoreOpenError,
                "Can't open the store at \(path): \(dbError.message ?? "permission denied") (SQLite \(dbError.extendedResultCode.rawValue)).",
                userInfo: [NSFilePathErrorKey: path, NSSQLiteErrorDomain: Int(code.rawValue)])
        }
        return CoreDataError.make(
            NSSQLiteError, "SQLite error \(code.rawValue) on the store at \(path): \(dbError.message ?? "")",
            userInfo: [NSFilePathErrorKey: path, NSSQLiteErrorDomain: Int(dbError.extendedResultCode.rawValue)])
    }

    static func notAStore(_ path: String, reason: String, sqliteCode: Int?) -> NSError {
        var info: [String: Any] = [NSFilePathErrorKey: path]
        if let sqliteCode { info[NSSQLiteErrorDomain] = sqliteCode }
        return CoreDataError.make(
            NSFileReadCorruptFileError, "The file at \(path) is not a Core Data store: \(reason).", userInfo: info)
    }
}
