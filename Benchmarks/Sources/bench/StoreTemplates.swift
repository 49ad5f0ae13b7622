import BenchmarkSupport
import Foundation
import GRDBSQLite
import OpenCoreData

/// The two database files every run starts from a copy of: an empty OpenCoreData store, and the
/// same store holding the data set. Both are Core Data stores in Apple's layout (ZTSPITEM with
/// Z_PK, Z_ENT, Z_OPT, ZNAME, ZCREATEDAT, ZDONE; Z_PRIMARYKEY; Z_METADATA), so the three ways read
/// and write the very same tables.
struct StoreTemplates: Sendable {
    let folder: URL
    let empty: URL
    let filled: URL

    /// Creates the empty store with OpenCoreData, then copies it and fills the copy with raw SQLite
    /// (the fastest way; the filled store is not part of any measurement).
    static func make(in folder: URL, model: NSManagedObjectModel, data: DataSet) throws -> StoreTemplates {
        let empty = folder.appendingPathComponent("Empty.sqlite")
        let filled = folder.appendingPathComponent("Filled.sqlite")
        try makeEmptyStore(at: empty, model: model)
        let emptyDB = try RawDatabase(url: empty)
        try emptyDB.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        emptyDB.close()
        try FileManager.default.copyItem(at: empty, to: filled)
        let db = try RawDatabase(url: filled)
        defer { db.close() }
        try db.execute("BEGIN")
        let insert = try db.prepare("INSERT INTO ZTSPITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCREATEDAT, ZDONE) VALUES (?, 1, 1, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        for i in 0..<data.count {
            sqlite3_bind_int64(insert, 1, Int64(i + 1))
            RawDatabase.bindText(data.names[i], insert, 2)
            sqlite3_bind_double(insert, 3, data.dates[i].timeIntervalSinceReferenceDate)
            sqlite3_bind_int64(insert, 4, data.done[i] ? 1 : 0)
            try db.stepDone(insert)
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(data.count) WHERE Z_NAME = 'TSPItem'")
        try db.execute("COMMIT")
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return StoreTemplates(folder: folder, empty: empty, filled: filled)
    }

    /// Creates an empty store of `model` at `url` with OpenCoreData, and closes it. Checkpoint it
    /// before copying: the pool's read-only readers close last and leave the schema in the WAL.
    static func makeEmptyStore(at url: URL, model: NSManagedObjectModel) throws {
        let container = NSPersistentContainer(name: "Bench", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        for store in container.persistentStoreCoordinator.persistentStores {
            try container.persistentStoreCoordinator.remove(store)
        }
    }

    /// A fresh copy of a template in a folder of its own.
    func copy(filled useFilled: Bool, into runFolder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: runFolder, withIntermediateDirectories: true)
        let destination = runFolder.appendingPathComponent("Bench.sqlite")
        try FileManager.default.copyItem(at: useFilled ? filled : empty, to: destination)
        return destination
    }
}
