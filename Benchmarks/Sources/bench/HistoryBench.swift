import BenchmarkSupport
import Foundation
import GRDB
import GRDBSQLite
import OpenCoreData

/// Issue 22's figures: what persistent history costs a save and a batch update, reading and
/// merging it, how soon another process's save is noticed, and the fetched results controller.
/// Each against the same work without the feature, and against raw SQLite (and GRDB) doing the
/// equivalent by hand: a change-log row per object, a `SELECT` of the log.
enum HistoryBench {
    struct Line {
        let title: String
        let figure: String
        let target: String
        let met: Bool
        let reference: String
    }

    /// How many objects the history cases read: the cases that write take every row (issue
    /// 22 states them at 1,000,000), those that read and merge at most 100,000.
    static func size(rows: Int) -> Int { min(rows, 100_000) }

    static func measure(data: DataSet, rows: Int, runs: Int, scratch: URL, log: (String) -> Void) throws -> [Line] {
        let count = size(rows: rows)
        let bench = Runner(data: data, count: count, scratch: scratch)
        let writer = Runner(data: data, count: rows, scratch: scratch)
        var lines: [Line] = []

        log("History: insert \(rows), save…")
        let insertPlain = try median(runs) { try writer.ocdInsert(history: false) }
        let insertHistory = try median(runs) { try writer.ocdInsert(history: true) }
        let rawPlain = try median(runs) { try writer.rawInsert(log: false) }
        let rawLog = try median(runs) { try writer.rawInsert(log: true) }
        lines.append(Line(
            title: "insert \(rows), save, with history / without", figure: ratio(insertHistory / insertPlain), target: "≤ 1.40×",
            met: insertHistory / insertPlain <= 1.4,
            reference: "raw SQLite writing Apple's change rows too / without: \(ratio(rawLog / rawPlain)); OpenCoreData with history / raw with them: \(ratio(insertHistory / rawLog))"))

        log("History: batch update of \(rows)…")
        let updatePlain = try median(runs) { try writer.ocdBatchUpdate(history: false) }
        let updateHistory = try median(runs) { try writer.ocdBatchUpdate(history: true) }
        let rawUpdate = try median(runs) { try writer.rawBatchUpdate(log: false) }
        let rawUpdateLog = try median(runs) { try writer.rawBatchUpdate(log: true) }
        lines.append(Line(
            title: "batch update done = YES on \(rows), with history / without", figure: ratio(updateHistory / updatePlain),
            target: "≤ 1.50×", met: updateHistory / updatePlain <= 1.5,
            reference: "raw SQLite writing Apple's change rows too / without: \(ratio(rawUpdateLog / rawUpdate)); OpenCoreData with history / raw with them: \(ratio(updateHistory / rawUpdateLog))"))

        log("History: fetch \(count) changes…")
        let history = try bench.storeWithHistory()
        let fetchOCD = try median(runs) { try bench.ocdFetchHistory(history) }
        let fetchRaw = try median(runs) { try bench.rawFetchHistory(history) }
        let fetchGRDB = try median(runs) { try bench.grdbFetchHistory(history) }
        lines.append(Line(
            title: "fetchHistory: \(count) changes in transactions / raw SELECT of ACHANGE", figure: ratio(fetchOCD / fetchRaw),
            target: "≤ 2.00×", met: fetchOCD / fetchRaw <= 2,
            reference: "\(ms(fetchOCD)) ms; GRDB Row.fetchAll / raw: \(ratio(fetchGRDB / fetchRaw))"))

        log("History: merge a transaction of 10,000 updates…")
        let (merge, reread) = try bench.mergeUpdates(history, runs: runs)
        lines.append(Line(
            title: "merge a transaction's 10,000 updates into a context holding them / raw re-read of the rows",
            figure: ratio(merge / reread), target: "≤ 2.00×", met: merge / reread <= 2,
            reference: "\(ms(merge)) ms"))

        log("Remote changes from another process…")
        let remote = try RemoteLatency.measure(scratch: scratch.appendingPathComponent("remote"), model: TSPItemModel.make(), log: log)
        lines.append(Line(
            title: "another process's save → NSPersistentStoreRemoteChange (median of \(remote.notified.count))",
            figure: "\(ms(Report.median(remote.notified))) ms", target: "≤ 50 ms", met: Report.median(remote.notified) <= 0.05,
            reference: "p99 \(ms(percentile(remote.notified, 0.99))) ms"))
        lines.append(Line(
            title: "… and its transaction read from history (what `todo watch` does)",
            figure: "\(ms(Report.median(remote.watched))) ms", target: "≤ 100 ms", met: Report.median(remote.watched) <= 0.1,
            reference: "p99 \(ms(percentile(remote.watched, 0.99))) ms"))
        lines.append(Line(
            title: "CPU while idle, watching a store for remote changes", figure: String(format: "%.2f%%", remote.idleCPU * 100),
            target: "< 1%", met: remote.idleCPU < 0.01, reference: "over \(Int(RemoteLatency.idleSeconds)) s"))

        log("Fetched results controller over \(count) rows…")
        let frc = try FetchedResultsBench(data: data, count: count, scratch: scratch)
        let (performFetch, plainFetch) = try frc.performFetch(runs: runs)
        lines.append(Line(
            title: "NSFetchedResultsController.performFetch, \(count) rows by createdAt / the same fetch", figure: ratio(performFetch / plainFetch),
            target: "≤ 1.20×", met: performFetch / plainFetch <= 1.2, reference: "\(ms(performFetch)) ms"))
        let oneChange = try frc.oneChange()
        lines.append(Line(
            title: "one object changed → its move reported, among \(count) results (median of \(oneChange.count))",
            figure: "\(String(format: "%.3f", Report.median(oneChange) * 1000)) ms", target: "≤ 1 ms", met: Report.median(oneChange) <= 0.001,
            reference: "p99 \(String(format: "%.3f", percentile(oneChange, 0.99) * 1000)) ms"))
        return lines
    }

    static func render(_ lines: [Line], runs: Int, heading: String = "History, remote changes and fetched results (issue 22)") -> String {
        var text = "\(heading), median of \(runs) runs unless said\n\n"
        text += "| case | figure | target | | reference |\n|---|---:|---:|---|---|\n"
        for line in lines {
            text += "| \(line.title) | \(line.figure) | \(line.target) | \(line.met ? "met" : "**not met**") | \(line.reference) |\n"
        }
        return text
    }

    static func median(_ runs: Int, _ measure: () throws -> Double) throws -> Double {
        Report.median(try (0..<runs).map { _ in try measure() })
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double { Statistics.percentile(values, fraction) }

    static func ratio(_ value: Double) -> String { Report.ratio(value) }
    static func ms(_ seconds: Double) -> String { Report.milliseconds(seconds) }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let elapsed = start.duration(to: clock.now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Opens a container on `url`, with persistent history or without.
    static func container(at url: URL, history: Bool, remoteChanges: Bool = false) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Bench", managedObjectModel: TSPItemModel.make())
        let description = NSPersistentStoreDescription(url: url)
        if history { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
        if remoteChanges { description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey) }
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    /// Inserts the data set's first `count` items through the typed class, as an app does.
    static func insertItems(_ count: Int, of data: DataSet, into context: NSManagedObjectContext) {
        for i in 0..<count {
            let item = TSPItem(context: context)
            item.name = data.names[i]
            item.createdAt = data.dates[i]
            item.done = data.done[i]
        }
    }

    static func close(_ container: NSPersistentContainer) throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }
}

/// The history cases' runs, each on a fresh store in the scratch folder.
private struct Runner {
    let data: DataSet
    let count: Int
    let scratch: URL

    private func freshURL(_ name: String) throws -> URL {
        let folder = scratch.appendingPathComponent("history-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("Store.sqlite")
    }

    private func remove(_ url: URL) { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    func ocdInsert(history: Bool) throws -> Double {
        let url = try freshURL("insert")
        defer { remove(url) }
        let container = try HistoryBench.container(at: url, history: history)
        defer { try? HistoryBench.close(container) }
        let context = container.newBackgroundContext()
        Heap.releaseFreeMemory()
        return try context.performAndWait {
            try HistoryBench.seconds {
                HistoryBench.insertItems(count, of: data, into: context)
                try context.save()
                context.reset()
            }
        }
    }

    /// A store of `count` items written by OpenCoreData (with history or without).
    private func filledStore(history: Bool) throws -> URL {
        let url = try freshURL("filled")
        let container = try HistoryBench.container(at: url, history: history)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var index = 0
            let insert = NSBatchInsertRequest(entityName: "TSPItem") { (item: NSManagedObject) -> Bool in
                guard index < count else { return true }
                item.setValue(data.names[index], forKey: "name")
                item.setValue(data.dates[index], forKey: "createdAt")
                item.setValue(false, forKey: "done")
                index += 1
                return false
            }
            _ = try context.execute(insert)
        }
        try HistoryBench.close(container)
        return url
    }

    func ocdBatchUpdate(history: Bool) throws -> Double {
        let url = try filledStore(history: history)
        defer { remove(url) }
        let container = try HistoryBench.container(at: url, history: history)
        defer { try? HistoryBench.close(container) }
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            try HistoryBench.seconds {
                let update = NSBatchUpdateRequest(entityName: "TSPItem")
                update.propertiesToUpdate = ["done": true]
                update.resultType = .updatedObjectsCountResultType
                let result = try context.execute(update) as! NSBatchUpdateResult
                guard result.result as? Int == count else { throw BenchError("batch update changed \(result.result ?? "nil") rows") }
            }
        }
    }

    /// The change rows raw SQLite writes: Apple's `ACHANGE` with its index, as Core Data creates
    /// it, so that the reference is what writing history in Apple's format costs SQLite itself.
    private static let logTable = """
        CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, \
        ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB ); \
        CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)
        """

    /// One change row per row of the item table, the cheapest way SQLite has: one `INSERT …
    /// SELECT` (the rows never travel through the program), numbered by SQLite.
    private static func logEveryItem(changeType: Int, transaction: Int, columns: String) -> String {
        """
        INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) \
        SELECT 16001, NULL, \(changeType), 1, Z_PK, \(transaction), \(columns) FROM ZTSPITEM
        """
    }

    func rawInsert(log: Bool) throws -> Double {
        let url = try freshURL("raw-insert")
        defer { remove(url) }
        try FileManager.default.copyItem(at: scratch.appendingPathComponent("Empty.sqlite"), to: url)
        let db = try RawDatabase(url: url)
        defer { db.close() }
        try db.execute(Self.logTable)
        Heap.releaseFreeMemory()
        return try HistoryBench.seconds {
            try db.execute("BEGIN IMMEDIATE")
            let insert = try db.prepare("INSERT INTO ZTSPITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCREATEDAT, ZDONE) VALUES (?, 1, 1, ?, ?, ?)")
            defer { sqlite3_finalize(insert) }
            for i in 0..<count {
                sqlite3_bind_int64(insert, 1, Int64(i + 1))
                RawDatabase.bindText(data.names[i], insert, 2)
                sqlite3_bind_double(insert, 3, data.dates[i].timeIntervalSinceReferenceDate)
                sqlite3_bind_int64(insert, 4, data.done[i] ? 1 : 0)
                try db.stepDone(insert)
            }
            if log { try db.execute(Self.logEveryItem(changeType: 0, transaction: 1, columns: "NULL")) }
            try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_NAME = 'TSPItem'")
            try db.execute("COMMIT")
        }
    }

    func rawBatchUpdate(log: Bool) throws -> Double {
        let url = try filledStore(history: false)
        defer { remove(url) }
        let db = try RawDatabase(url: url)
        defer { db.close() }
        try db.execute(Self.logTable)
        return try HistoryBench.seconds {
            try db.execute("BEGIN IMMEDIATE")
            // The change rows of the rows the update is about to change, with the bitmap of the
            // one column it sets.
            if log { try db.execute(Self.logEveryItem(changeType: 1, transaction: 2, columns: "x'02'")) }
            try db.execute("UPDATE ZTSPITEM SET ZDONE = 1, Z_OPT = Z_OPT + 1")
            try db.execute("COMMIT")
        }
    }

    /// A store whose history holds one transaction of `count` inserts.
    func storeWithHistory() throws -> URL {
        let url = try freshURL("history")
        let container = try HistoryBench.container(at: url, history: true)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            HistoryBench.insertItems(count, of: data, into: context)
            try context.save()
            // Waits for what the save left to release aside, which would otherwise be freed on
            // another thread during the measurement that follows.
            context.reset()
        }
        try HistoryBench.close(container)
        return url
    }

    func ocdFetchHistory(_ url: URL) throws -> Double {
        let container = try HistoryBench.container(at: url, history: true)
        defer { try? HistoryBench.close(container) }
        let context = container.newBackgroundContext()
        Heap.releaseFreeMemory()
        return try context.performAndWait {
            try HistoryBench.seconds {
                let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                let transactions = (result as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
                let changes = transactions.reduce(0) { $0 + ($1.changes?.count ?? 0) }
                guard changes >= count else { throw BenchError("fetchHistory returned \(changes) changes") }
            }
        }
    }

    /// A change row as a raw program keeps it.
    private struct RawChange {
        let id: Int64
        let entity: Int64
        let primaryKey: Int64
        let type: Int64
        let transaction: Int64
        let columns: [UInt8]?
    }

    private static let changeSQL = "SELECT Z_PK, ZENTITY, ZENTITYPK, ZCHANGETYPE, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK"

    func rawFetchHistory(_ url: URL) throws -> Double {
        let db = try RawDatabase(url: url)
        defer { db.close() }
        Heap.releaseFreeMemory()
        return try HistoryBench.seconds {
            let statement = try db.prepare(Self.changeSQL)
            defer { sqlite3_finalize(statement) }
            var changes: [RawChange] = []
            while try db.stepRow(statement) {
                let bytes = sqlite3_column_blob(statement, 5)
                let columns = bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(sqlite3_column_bytes(statement, 5)))) }
                changes.append(RawChange(
                    id: sqlite3_column_int64(statement, 0), entity: sqlite3_column_int64(statement, 1),
                    primaryKey: sqlite3_column_int64(statement, 2), type: sqlite3_column_int64(statement, 3),
                    transaction: sqlite3_column_int64(statement, 4), columns: columns))
            }
            guard changes.count >= count else { throw BenchError("raw history read \(changes.count) changes") }
        }
    }

    func grdbFetchHistory(_ url: URL) throws -> Double {
        let pool = try DatabasePool(path: url.path)
        Heap.releaseFreeMemory()
        return try HistoryBench.seconds {
            let rows = try pool.read { db in try Row.fetchAll(db, sql: Self.changeSQL) }
            guard rows.count >= count else { throw BenchError("GRDB history read \(rows.count) changes") }
        }
    }

    /// The merge of a transaction of 10,000 updates (from the history) into a context holding those
    /// objects, against raw SQLite reading the same rows again by primary key.
    func mergeUpdates(_ url: URL, runs: Int) throws -> (merge: Double, reread: Double) {
        let changed = min(10_000, count)
        let container = try HistoryBench.container(at: url, history: true)
        defer { try? HistoryBench.close(container) }
        let viewer = container.newBackgroundContext()
        let writer = container.newBackgroundContext()
        var merges: [Double] = []
        var rereads: [Double] = []
        for run in 0..<runs {
            let before = container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
            let held = try viewer.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.fetchLimit = changed
                request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
                request.returnsObjectsAsFaults = false
                return try viewer.fetch(request)
            }
            let ids = held.map(\.objectID)
            try writer.performAndWait {
                for id in ids { try writer.existingObject(with: id).setValue("Merged \(run)", forKey: "name") }
                try writer.save()
                writer.reset()
            }
            let transaction = try viewer.performAndWait {
                let result = try viewer.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: before))
                return ((result as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]).last!
            }
            let notification = transaction.objectIDNotification()
            merges.append(HistoryBench.seconds { viewer.mergeChanges(fromContextDidSave: notification) })
            let merged = viewer.performAndWait { held.allSatisfy { $0.value(forKey: "name") as? String == "Merged \(run)" } }
            guard merged else { throw BenchError("the merge left objects with their old names") }
            viewer.performAndWait { viewer.reset() }

            let db = try RawDatabase(url: url)
            defer { db.close() }
            let keys = ids.map { $0.uriRepresentation().lastPathComponent.dropFirst() }.compactMap { Int64($0) }
            rereads.append(try HistoryBench.seconds {
                let statement = try db.prepare("SELECT Z_PK, Z_OPT, ZNAME, ZCREATEDAT, ZDONE FROM ZTSPITEM WHERE Z_PK = ?")
                defer { sqlite3_finalize(statement) }
                var names: [String] = []
                for key in keys {
                    sqlite3_bind_int64(statement, 1, key)
                    if try db.stepRow(statement) { names.append(RawDatabase.text(statement, 2)) }
                    sqlite3_reset(statement)
                }
                guard names.count == changed else { throw BenchError("raw re-read \(names.count) rows") }
            })
        }
        return (Report.median(merges), Report.median(rereads))
    }
}
