import BenchmarkSupport
import Foundation
import GRDBSQLite
import OpenCoreData
import OpenSwiftData

/// One measurement of every case through one way, in a store of its own.
enum WayRun {
    static func measure(_ way: Way, data: DataSet, folder: URL) throws -> WayResult {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        Heap.releaseFreeMemory()
        switch way {
        case .raw: return try raw(data, url)
        case .typed: return try typed(data, url)
        case .swiftData: return try swiftData(data, url)
        }
    }

    /// Heap bytes per object of what `fetch` returns, held while measured.
    private static func bytesPerObject(_ count: Int, _ fetch: () throws -> Any) rethrows -> Double {
        Heap.releaseFreeMemory()
        let before = Heap.bytesInUse()
        let held = try fetch()
        let after = Heap.bytesInUse()
        withExtendedLifetime(held) {}
        return Double(after - before) / Double(count)
    }

    // MARK: Raw SQLite

    private struct RawItem {
        var primaryKey: Int64
        var name: String
        var createdAt: Date
        var done: Bool
    }

    private static func raw(_ data: DataSet, _ url: URL) throws -> WayResult {
        let db = try RawDatabase(url: url)
        defer { db.close() }
        try db.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME TEXT, ZCREATEDAT TIMESTAMP, ZDONE INTEGER)")
        let insert = try seconds {
            try db.execute("BEGIN")
            let statement = try db.prepare("INSERT INTO ZITEM (ZNAME, ZCREATEDAT, ZDONE) VALUES (?, ?, ?)")
            defer { sqlite3_finalize(statement) }
            for i in 0..<data.count {
                RawDatabase.bindText(data.names[i], statement, 1)
                sqlite3_bind_double(statement, 2, data.dates[i].timeIntervalSinceReferenceDate)
                sqlite3_bind_int(statement, 3, data.done[i] ? 1 : 0)
                try db.stepDone(statement)
            }
            try db.execute("COMMIT")
        }
        func items(_ sql: String) throws -> [RawItem] {
            let statement = try db.prepare(sql)
            defer { sqlite3_finalize(statement) }
            var items: [RawItem] = []
            while try db.stepRow(statement) {
                items.append(
                    RawItem(
                        primaryKey: sqlite3_column_int64(statement, 0), name: RawDatabase.text(statement, 1),
                        createdAt: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 2)), done: sqlite3_column_int(statement, 3) != 0))
            }
            return items
        }
        let fetch = try seconds {
            var touched = 0
            for item in try items("SELECT Z_PK, ZNAME, ZCREATEDAT, ZDONE FROM ZITEM WHERE ZDONE = 0 ORDER BY ZCREATEDAT") {
                touched &+= item.name.utf8.count &+ Int(item.createdAt.timeIntervalSinceReferenceDate) &+ (item.done ? 1 : 0)
            }
            precondition(touched != 0)
        }
        let count = try seconds {
            let statement = try db.prepare("SELECT COUNT(*) FROM ZITEM WHERE ZDONE = 0")
            defer { sqlite3_finalize(statement) }
            _ = try db.stepRow(statement)
            precondition(sqlite3_column_int64(statement, 0) > 0)
        }
        let bytes = try bytesPerObject(data.count) { try items("SELECT Z_PK, ZNAME, ZCREATEDAT, ZDONE FROM ZITEM") }
        return WayResult(insert: insert, fetchIterate: fetch, count: count, bytesPerObject: bytes)
    }

    // MARK: Generated classes

    private static func typed(_ data: DataSet, _ url: URL) throws -> WayResult {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TSPItemModel.make())
        // History on, as SwiftData's store has it: the same work per save.
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let insert = try seconds {
            let context = context()
            for i in 0..<data.count {
                let item = TSPItem(context: context)
                item.name = data.names[i]
                item.createdAt = data.dates[i]
                item.done = data.done[i]
            }
            try context.save()
        }
        let fetch = try seconds {
            let request = NSFetchRequest<TSPItem>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "done == NO")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
            var touched = 0
            for item in try context().fetch(request) {
                touched &+= (item.name?.utf8.count ?? 0) &+ Int(item.createdAt?.timeIntervalSinceReferenceDate ?? 0) &+ (item.done ? 1 : 0)
            }
            precondition(touched != 0)
        }
        let count = try seconds {
            let request = NSFetchRequest<TSPItem>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "done == NO")
            let counted = try context().count(for: request)
            precondition(counted > 0)
        }
        let reader = context()
        let bytes = try bytesPerObject(data.count) { try reader.fetch(NSFetchRequest<TSPItem>(entityName: "TSPItem")) }
        return WayResult(insert: insert, fetchIterate: fetch, count: count, bytesPerObject: bytes)
    }

    // MARK: OpenSwiftData

    private static func swiftData(_ data: DataSet, _ url: URL) throws -> WayResult {
        let container = try ModelContainer(for: SDItem.self, configurations: ModelConfiguration(url: url))
        let insert = try seconds {
            let context = ModelContext(container)
            for i in 0..<data.count {
                context.insert(SDItem(name: data.names[i], createdAt: data.dates[i], done: data.done[i]))
            }
            try context.save()
        }
        let fetch = try seconds {
            let descriptor = FetchDescriptor<SDItem>(predicate: #Predicate { !$0.done }, sortBy: [SortDescriptor(\.createdAt)])
            var touched = 0
            for item in try ModelContext(container).fetch(descriptor) {
                touched &+= (item.name?.utf8.count ?? 0) &+ Int(item.createdAt?.timeIntervalSinceReferenceDate ?? 0) &+ (item.done ? 1 : 0)
            }
            precondition(touched != 0)
        }
        let count = try seconds {
            let counted = try ModelContext(container).fetchCount(FetchDescriptor<SDItem>(predicate: #Predicate { !$0.done }))
            precondition(counted > 0)
        }
        let reader = ModelContext(container)
        let bytes = try bytesPerObject(data.count) { try reader.fetch(FetchDescriptor<SDItem>()) }
        return WayResult(insert: insert, fetchIterate: fetch, count: count, bytesPerObject: bytes)
    }
}

/// The shapes of the public RealmVsSwiftData benchmark: create N simple users (one save), then
/// a sorted fetch of one name; time and the heap's peak.
enum UserShapes {
    static func measure(count: Int, folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        Heap.releaseFreeMemory()
        let sampler = HeapPeakSampler()
        let container = try ModelContainer(for: User.self, configurations: ModelConfiguration(url: folder.appendingPathComponent("users.store")))
        let create = try seconds {
            let context = ModelContext(container)
            for i in 0..<count { context.insert(User(name: "User \(i)", age: i % 90)) }
            try context.save()
        }
        let peak = sampler.stop()
        let target = "User \(count / 2)"
        var found = 0
        let fetch = try seconds {
            let descriptor = FetchDescriptor<User>(predicate: #Predicate { $0.name == target }, sortBy: [SortDescriptor(\.name)])
            found = try ModelContext(container).fetch(descriptor).count
        }
        precondition(found == 1)
        return "| \(count) users | \(String(format: "%.2f s", create)) | \(String(format: "%.0f MB", Double(peak) / 1_048_576)) | \(String(format: "%.1f ms", fetch * 1000)) |\n"
    }
}
