import Foundation
import PostgreSQLScratchServer
import GRDB
import OpenCoreData
import Testing

/// `todo`'s model has a second version (`priority`, `note`, and `name` renamed `title` through
/// its renaming identifier). A store the first release wrote opens with the new program,
/// migrates in place and keeps every item; a migration killed at any moment leaves one whole
/// store, of either version, with every row.
@Suite struct ModelVersionTests {
    static var modelBundle: URL {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("Sources/todo/Done.xcdatamodeld")
    }

    static func model(_ version: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel(contentsOf: modelBundle, versionName: version)
    }

    /// A store as the first release made it: its model, with history recorded as `todo` does.
    static func version1Store(at url: URL, items: [(name: String, done: Bool)]) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try model("Done"))
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            if items.count > 1000 {
                let rows = items.enumerated().map { index, item in
                    ["name": item.name, "done": item.done, "createdAt": Date(timeIntervalSinceReferenceDate: Double(index))] as [String: Any]
                }
                _ = try context.execute(NSBatchInsertRequest(entityName: "TSPItem", objects: rows))
            } else {
                for (index, item) in items.enumerated() {
                    let object = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                    object.setValue(item.name, forKey: "name")
                    object.setValue(item.done, forKey: "done")
                    object.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "createdAt")
                }
                try context.save()
            }
        }
        try coordinator.remove(store)
    }

    @Test func aVersion1StoreOpensMigratedAndKeepsItsItems() throws {
        let sandbox = try TodoSandbox()
        try Self.version1Store(at: sandbox.store, items: [("Milk", false), ("Eggs", true), ("Bread", false)])
        let keys = try DatabaseQueue(path: sandbox.store.path).read { db in try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZTSPITEM ORDER BY Z_PK") }

        let stats = try sandbox.run("stats")
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.lines.contains("items:   3"))
        #expect(stats.lines.contains("done:    1"))
        let version2 = try Self.model("Done 2")
        #expect(stats.lines.contains("model:   version 2 (\(version2.versionChecksum))"))
        // The migration's bar, on standard error, to its end; the next command has nothing to migrate.
        #expect(stats.stderr.contains("migrating the store to the current model: 100/100, 100%"), "\(stats.stderr)")

        let list = try sandbox.run("list")
        #expect(list.status == 0)
        #expect(!list.stderr.contains("migrating"))
        for name in ["Milk", "Eggs", "Bread"] { #expect(list.stdout.contains(name), "\(name) in \(list.stdout)") }

        let (columns, priorities, migratedKeys) = try DatabaseQueue(path: sandbox.store.path).read { db in
            (
                try db.columns(in: "ZTSPITEM").map(\.name),
                try Int.fetchAll(db, sql: "SELECT ZPRIORITY FROM ZTSPITEM"),
                try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZTSPITEM ORDER BY Z_PK")
            )
        }
        #expect(columns.contains("ZTITLE") && columns.contains("ZPRIORITY") && columns.contains("ZNOTE"))
        #expect(!columns.contains("ZNAME"))
        #expect(priorities == [0, 0, 0])
        #expect(migratedKeys == keys)
        let added = try sandbox.run("add", "Tea")
        #expect(added.status == 0)
        #expect(try sandbox.run("list").stdout.contains("Tea"))
    }

    /// `todo stats` migrating a 200,000-item store, killed with SIGKILL at random moments, 30
    /// times: each time the store passes SQLite's integrity check, opens with the model version
    /// its metadata names, and holds every item.
    @Test func aMigrationKilledAnywhereLeavesOneWholeStore() throws {
        let sandbox = try TodoSandbox()
        let pristine = sandbox.folder.appendingPathComponent("Version1.sqlite")
        let count = 200_000
        try Self.version1Store(at: pristine, items: (0..<count).map { ("Item \($0)", $0 % 3 == 0) })
        let versions = [try Self.model("Done"), try Self.model("Done 2")]

        let store = sandbox.store
        func restore() throws {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
            try FileManager.default.copyItem(at: pristine, to: store)
        }
        try restore()
        let started = Date()
        #expect(try sandbox.run("stats").status == 0)
        let window = Date().timeIntervalSince(started) * 1.2

        var migrated = 0, killed = 0
        for _ in 0..<30 {
            try restore()
            let process = try SpawnedProgram.start([try TodoSandbox.executable().path, "stats", "--store", store.path], stdout: "/dev/null")
            // A kill at a random moment of the migration: the randomness is the test, not a wait.
            Thread.sleep(forTimeInterval: Double.random(in: 0...window))
            if process.isRunning {
                process.send(SIGKILL)
                killed += 1
            }
            process.wait()

            let (integrity, rows) = try DatabaseQueue(path: store.path).read { db in
                (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT count(*) FROM ZTSPITEM"))
            }
            #expect(integrity == "ok")
            #expect(rows == count)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
            let version = try #require(versions.firstIndex { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) })
            if version == 1 { migrated += 1 }
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: versions[version])
            let opened = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: [NSPersistentHistoryTrackingKey: true])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) } == count)
            try coordinator.remove(opened)
        }
        print("migration kills: \(killed) of 30 killed while running (window \(String(format: "%.2f", window)) s), \(migrated) left migrated")
        #expect(killed > 0)
    }
}
