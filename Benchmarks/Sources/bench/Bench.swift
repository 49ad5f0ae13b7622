import BenchmarkSupport
import ArgumentParser
import Foundation
import GRDBSQLite
import OpenCoreData

/// `bench`: every case of issue 4, three ways in one process — raw SQLite, GRDB records,
/// OpenCoreData — each run on a fresh copy of the same store; prints one Markdown table of medians.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "OpenCoreData against raw SQLite and GRDB records on the tutorials' to-do items.")

    @Option(help: "How many TSPItem rows the data set has.")
    var rows: Int = 1_000_000

    @Option(help: "Run only this case (comma-separated names for several): \(BenchCase.allCases.map(\.rawValue).joined(separator: ", ")).")
    var only: String?

    @Option(help: "Runs per case and way; the table shows medians.")
    var runs: Int = 5

    @Option(help: "Run only these ways (comma-separated: raw, grdb, ocd, grdb-rows, objects), e.g. one way under a profiler. objects: raw SQLite's reads into an object per row, the floor under the fetch ratios.")
    var ways: String = "raw,grdb,ocd,grdb-rows,objects"

    @Flag(inversion: .prefixedNo, help: "Measure the asynchronous fetch's responsiveness too (the context's longest wait, the cancellation's latency): on by default with every case, off with --only.")
    var responsiveness: Bool?

    @Flag(inversion: .prefixedNo, help: "Measure typed accessor calls against KVC calls: on by default with every case, off with --only.")
    var accessors: Bool?

    @Flag(inversion: .prefixedNo, help: "Measure persistent history, remote changes and the fetched results controller (issue 22): on by default with every case, off with --only.")
    var history: Bool?

    @Flag(inversion: .prefixedNo, help: "Measure lightweight migrations that add and drop a column (issue 23): on by default with every case, off with --only.")
    var migration: Bool?

    @Flag(inversion: .prefixedNo, help: "Measure the public benchmark shapes (RealmVsSwiftData, Northwind, GRDB's; issue 43): on by default with every case, off with --only. `--only '' --shapes` runs them alone.")
    var shapes: Bool?

    @Flag(inversion: .prefixedNo, help: "Count the heap allocations of each step of an object's life (insert, save, fetch, change, delete; issue 43): on by default with every case, off with --only.")
    var allocations: Bool?

    @Option(help: "Multiplies the public shapes' published sizes (CI's smoke run: 0.01).")
    var shapeScale: Double = 1

    @Option(help: .hidden)
    var remoteWriter: String?

    @Flag(help: "Do not give the heap's free pages back before each run: runs then reuse what earlier runs (of any way) freed, as a long-running process does, and their times depend on the order of the ways.")
    var warmHeap = false

    func validate() throws {
        guard rows >= BenchCase.changeCount else { throw ValidationError("--rows must be at least \(BenchCase.changeCount).") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1.") }
        _ = try selectedCases()
        _ = try selectedWays()
    }

    private func selectedWays() throws -> [Int] {
        let names = ["raw", "grdb", "ocd", "grdb-rows", "objects"]
        return try ways.split(separator: ",").map { name in
            guard let index = names.firstIndex(of: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown way '\(name)'. Ways: \(names.joined(separator: ", ")).")
            }
            return index
        }
    }

    private func selectedCases() throws -> [BenchCase] {
        guard let only else { return BenchCase.allCases }
        return try only.split(separator: ",").map { name in
            guard let benchCase = BenchCase(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown case '\(name)'. Cases: \(BenchCase.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return benchCase
        }
    }

    func run() throws {
        // The other process of the remote-change latency: started by this program itself.
        if let remoteWriter { return try RemoteWriter.run(path: remoteWriter) }
        let cases = try selectedCases()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let log = { (line: String) in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        log("Preparing \(rows) rows…")
        let data = DataSet(rows: rows)
        let model = TSPItemModel.make()
        let templates = try StoreTemplates.make(in: scratch, model: model, data: data)
        let harness = Harness(
            fixture: Fixture(data: data, model: model, templates: templates), runs: runs,
            selectedWays: try selectedWays(), scratch: scratch, trimsHeap: !warmHeap)

        var report = Report(rows: rows, runs: runs)
        for benchCase in cases {
            report.lines.append(Report.Row(benchCase: benchCase, measurements: try harness.measure(benchCase, log: log)))
        }
        var responsivenessReport: Responsiveness?
        if responsiveness ?? (only == nil) {
            log("Responsiveness of the asynchronous fetch…")
            responsivenessReport = try Responsiveness.measure(
                fixture: harness.fixture, in: scratch.appendingPathComponent("responsiveness"), attempts: runs, log: log)
        }
        var accessorLines: [AccessorCalls.Line] = []
        let accessorObjects = 1_000
        if accessors ?? (only == nil) {
            log("Typed accessors against KVC…")
            accessorLines = try AccessorCalls.measure(model: model, data: data, count: accessorObjects, runs: runs)
        }
        var historyLines: [HistoryBench.Line] = []
        if history ?? (only == nil) {
            log("History, remote changes, fetched results…")
            historyLines = try HistoryBench.measure(data: data, rows: rows, runs: runs, scratch: scratch, log: log)
        }
        var migrationLines: [HistoryBench.Line] = []
        if migration ?? (only == nil) {
            log("Migrations…")
            migrationLines = try MigrationBench.measure(data: data, runs: runs, scratch: scratch, log: log)
        }
        var shapeLines: [PublicShapes.Line] = []
        if shapes ?? (only == nil) {
            log("Public benchmark shapes…")
            shapeLines = try PublicShapes.measure(PublicShapes.all(scale: shapeScale), runs: runs, scratch: scratch, log: log)
        }
        var allocationLines: [ObjectAllocations.Line] = []
        if allocations ?? (only == nil) {
            log("Allocations per object…")
            allocationLines = try ObjectAllocations.measure(fixture: harness.fixture, scratch: scratch)
        }
        let heap = warmHeap ? "warm heap (freed pages kept between runs)" : "each run from a trimmed heap"
        print("OpenCoreData benchmarks: \(rows) rows, median of \(runs) runs per case and way, \(heap), SQLite \(String(cString: sqlite3_libversion())), release build")
        if !cases.isEmpty {
            print("")
            print(report.render())
        }
        if !shapeLines.isEmpty {
            print("")
            print(PublicShapes.render(shapeLines, runs: runs))
        }
        if !accessorLines.isEmpty {
            print("")
            print(AccessorCalls.render(accessorLines, count: accessorObjects, runs: runs))
        }
        if !allocationLines.isEmpty {
            print("")
            print(ObjectAllocations.render(allocationLines))
        }
        if let responsivenessReport {
            print("")
            print(responsivenessReport.render())
        }
        if !historyLines.isEmpty {
            print("")
            print(HistoryBench.render(historyLines, runs: runs))
        }
        if !migrationLines.isEmpty {
            print("")
            print(HistoryBench.render(migrationLines, runs: runs, heading: "Migrations (issue 23)"))
        }
    }
}
