import BenchmarkSupport
import Foundation
import GRDBSQLite

/// Runs cases: a fresh copy of a template store per run, the ways interleaved run by run so that
/// the machine's drift hits them all alike, the wall time of `run` only.
final class Harness {
    /// OpenCoreData third, as the table's columns have always had it; GRDB's fastest reading
    /// style fourth; the floor of an object per row (read by the report below the table) last.
    static var ways: [any BenchmarkWay.Type] {
        [RawSQLiteWay.self, GRDBWay.self, OpenCoreDataWay.self, GRDBRowsWay.self, RawObjectsWay.self]
    }

    /// One way's runs of one case.
    struct Measurements {
        var seconds: [Double] = []
        var heapGrowth: [Int] = []
        /// The part of each run spent in `release()`: letting go of the results.
        var releaseSeconds: [Double] = []
        var count = 0
    }

    let fixture: Fixture
    private let runs: Int
    /// Indexes into `ways` of the ways to run; the others keep empty measurements.
    private let selectedWays: [Int]
    private let scratch: URL
    /// Whether each run starts with the heap's free pages given back (`Heap.releaseFreeMemory`).
    /// Otherwise a run reuses the pages the previous run freed: glibc keeps more or less of them
    /// depending on its sizes so far, which moved one way's median by up to 40% with the order
    /// of the ways, and favoured allocations on the main thread over other threads' arenas.
    private let trimsHeap: Bool
    private let clock = ContinuousClock()

    init(fixture: Fixture, runs: Int, selectedWays: [Int], scratch: URL, trimsHeap: Bool) {
        self.fixture = fixture
        self.runs = runs
        self.selectedWays = selectedWays
        self.scratch = scratch
        self.trimsHeap = trimsHeap
    }

    /// Every way's measurements of `benchCase`, in the order of `ways`.
    func measure(_ benchCase: BenchCase, log: (String) -> Void) throws -> [Measurements] {
        var results = Array(repeating: Measurements(), count: Self.ways.count)
        let expected = benchCase.expectedCount(in: fixture.data)
        for run in 1...runs {
            for index in selectedWays where Self.ways[index].supports(benchCase) {
                let way = Self.ways[index]
                let (seconds, releasing, growth, count) = try measureOnce(benchCase, way: way, run: run)
                guard count == expected else {
                    throw BenchError("\(benchCase.rawValue), \(way.name): \(count) rows where \(expected) were expected")
                }
                results[index].seconds.append(seconds)
                results[index].heapGrowth.append(growth)
                results[index].releaseSeconds.append(releasing)
                results[index].count = count
                log(
                    "\(benchCase.rawValue) run \(run)/\(runs) \(way.name): \(Report.milliseconds(seconds)) ms, heap +\(Report.megabytes(growth)) MB"
                )
            }
        }
        return results
    }

    private func measureOnce(
        _ benchCase: BenchCase, way: any BenchmarkWay.Type, run: Int
    ) throws -> (seconds: Double, releaseSeconds: Double, heapGrowth: Int, count: Int) {
        let folder = scratch.appendingPathComponent("\(benchCase.rawValue)-\(run)-\(way.name.filter(\.isLetter))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try fixture.templates.copy(filled: !benchCase.startsEmpty, into: folder)
        let instance = try way.init(databaseURL: url, fixture: fixture)
        try instance.prepare(benchCase)
        if trimsHeap { Heap.releaseFreeMemory() }
        let before = Heap.bytesInUse()
        Heap.startPeak()
        let start = clock.now
        let count = try instance.run(benchCase)
        let ran = start.duration(to: clock.now)
        // The higher of the level the run ends at and any peak it sampled on the way.
        let after = max(Heap.bytesInUse(), Heap.peakBytes)
        let releasing = clock.now
        try instance.release()
        let released = releasing.duration(to: clock.now)
        let elapsed = ran + released
        try instance.close()
        try verify(benchCase, way: way, url: url)
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        return (seconds(elapsed), seconds(released), after - before, count)
    }

    /// Checks, after the run and outside the timing, that writes really reached the file.
    private func verify(_ benchCase: BenchCase, way: any BenchmarkWay.Type, url: URL) throws {
        let n = fixture.data.count
        let change = min(BenchCase.changeCount, n)
        let check: (sql: String, expected: Int)
        switch benchCase {
        case .insert, .typedInsert, .countAfterWrites: check = ("SELECT COUNT(*) FROM ZTSPITEM WHERE Z_ENT = 1 AND Z_OPT = 1", n)
        case .update10k: check = ("SELECT COUNT(*) FROM ZTSPITEM WHERE Z_OPT = 2", change)
        case .delete10k: check = ("SELECT COUNT(*) FROM ZTSPITEM", n - change)
        case .batchUpdate, .batchUpdateIDs: check = ("SELECT COUNT(*) FROM ZTSPITEM WHERE ZDONE = 1 AND Z_OPT = 2", n)
        case .batchInsert: check = ("SELECT COUNT(*) FROM ZTSPITEM WHERE Z_ENT = 1 AND Z_OPT = 1 AND Z_PK <= (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1)", n)
        case .batchDelete: check = ("SELECT COUNT(*) FROM ZTSPITEM WHERE ZDONE = 0", n - fixture.data.done.count { $0 })
        default: return
        }
        let db = try RawDatabase(url: url)
        defer { db.close() }
        let statement = try db.prepare(check.sql)
        defer { sqlite3_finalize(statement) }
        _ = try db.stepRow(statement)
        let found = Int(sqlite3_column_int64(statement, 0))
        guard found == check.expected else {
            throw BenchError("\(benchCase.rawValue), \(way.name): the file holds \(found) rows where \(check.expected) were expected")
        }
    }
}
