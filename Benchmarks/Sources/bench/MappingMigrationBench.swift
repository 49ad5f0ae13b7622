import BenchmarkSupport
import Foundation
import GRDBSQLite
import OpenCoreData

/// Issue 23's memory figure: a migration with a mapping model and a policy (the contexts' way,
/// not the in-place SQL of a lightweight one) of 10,000 and of 100,000 items; the heap's peak
/// growth over the migration must stay within 2× from the one to the other, since the manager
/// works a batch at a time. Times are reported alongside.
enum MappingMigrationBench {
    static let sizes = [10_000, 100_000]

    /// A policy doing what apps' policies do: the default mapping, then a value computed from
    /// the source.
    final class NoteWritingPolicy: NSEntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            for item in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]) {
                item.setValue("was \(sInstance.value(forKey: "name") as? String ?? "")", forKey: "note")
            }
        }
    }

    static func measure(bundle: URL, runs: Int, folder: URL, log: (String) -> Void) throws -> HistoryBench.Line {
        let source = try NSManagedObjectModel(contentsOf: bundle, versionName: "Version1")
        let destination = try NSManagedObjectModel(contentsOf: bundle, versionName: "AddNote")
        NSEntityMigrationPolicy.register(NoteWritingPolicy.self, forClassName: "NoteWritingPolicy")
        var peaks: [Int] = []
        var sqlitePeaks: [Int] = []
        var times: [Double] = []
        for size in sizes {
            log("Migration: a mapping model with a policy over \(size) items…")
            let sizeFolder = folder.appendingPathComponent("mapping-\(size)")
            try FileManager.default.createDirectory(at: sizeFolder, withIntermediateDirectories: true)
            let templates = try StoreTemplates.make(in: sizeFolder, model: source, data: DataSet(rows: size))
            var sizePeaks: [Int] = []
            var sizeSQLitePeaks: [Int] = []
            var sizeTimes: [Double] = []
            for _ in 0..<runs {
                let run = sizeFolder.appendingPathComponent("run-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: run) }
                let url = try templates.copy(filled: true, into: run)
                let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
                mapping.entityMappings.first?.entityMigrationPolicyClassName = "NoteWritingPolicy"
                let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
                manager.usesStoreSpecificMigrationManager = false
                Heap.releaseFreeMemory()
                // SQLite's own share of the peak: its page caches, bounded per connection.
                let sqliteBefore = Int(sqlite3_memory_used())
                sqlite3_memory_highwater(1)
                let sampler = HeapPeakSampler()
                let seconds = try HistoryBench.seconds {
                    try manager.migrateStore(
                        from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                        toDestinationURL: run.appendingPathComponent("Migrated.sqlite"), destinationType: NSSQLiteStoreType, destinationOptions: nil)
                }
                sizePeaks.append(sampler.stop())
                sizeSQLitePeaks.append(Int(sqlite3_memory_highwater(0)) - sqliteBefore)
                sizeTimes.append(seconds)
            }
            peaks.append(sizePeaks.sorted()[sizePeaks.count / 2])
            sqlitePeaks.append(sizeSQLitePeaks.sorted()[sizeSQLitePeaks.count / 2])
            times.append(Report.median(sizeTimes))
        }
        let ratio = Double(peaks[1]) / Double(max(1, peaks[0]))
        func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        return HistoryBench.Line(
            title: "mapping-model migration with a policy: peak heap growth for 100000 items / for 10000",
            figure: HistoryBench.ratio(ratio), target: "≤ 2.00×", met: ratio <= 2,
            reference: "10000: \(mb(peaks[0])) (SQLite's caches \(mb(sqlitePeaks[0]))), \(HistoryBench.ms(times[0])) ms; "
                + "100000: \(mb(peaks[1])) (SQLite's caches \(mb(sqlitePeaks[1]))), \(HistoryBench.ms(times[1])) ms")
    }
}
