import BenchmarkSupport
import Foundation
import GRDBSQLite
import OpenCoreData
import Synchronization

/// The shapes other projects publish figures for (issue 43): RealmVsSwiftData's users and
/// schools, Lighter's Northwind `Orders.fetchAll`, GRDB's ten-integer table. Each shape runs
/// every way in one process, turn by turn, on a fresh copy of one Core Data store, with its time
/// and the heap's peak growth over the run; the published figures, from other machines, are
/// quoted next to these in docs/performance.md.
enum PublicShapes {
    /// Who does the work.
    enum Way: Int, CaseIterable {
        case raw, grdbRecords, grdbRows, kvc, typed

        var title: String {
            switch self {
            case .raw: "raw SQLite"
            case .grdbRecords: "GRDB records"
            case .grdbRows: "GRDB rows"
            case .kvc: "OpenCoreData KVC"
            case .typed: "OpenCoreData typed"
            }
        }
    }

    /// One opened database, ready to run a shape: `run` is timed, then `release` (timed: letting
    /// go of the results), then `close` (not timed).
    struct Session {
        let run: () throws -> Int
        var release: () throws -> Void = {}
        var close: () throws -> Void = {}
    }

    struct Shape {
        let name: String
        let title: String
        let model: NSManagedObjectModel
        /// Fills the empty store before the runs (not timed), for shapes that read.
        let fill: ((RawDatabase) throws -> Void)?
        /// Opens a session on the store at a URL, per way the shape has.
        let ways: [Way: (URL) throws -> Session]
    }

    struct Line {
        let shape: Shape
        /// Per way: medians of time (seconds) and of peak heap growth (bytes); count returned.
        var seconds: [Way: Double] = [:]
        var peak: [Way: Int] = [:]
        var count = 0
    }

    /// Every shape at its published sizes times `scale` (CI's smoke run makes them small).
    static func all(scale: Double = 1) -> [Shape] {
        let sized = { (count: Int) in max(10, Int((Double(count) * scale).rounded())) }
        var shapes: [Shape] = []
        let userModel = ShapeModels.users()
        for count in [100_000, 1_000_000].map(sized) {
            let users = ShapeData.users(count)
            shapes.append(
                Shape(
                    name: "users-create \(count)", title: "RealmVsSwiftData: create \(count) users, save once",
                    model: userModel, fill: nil,
                    ways: [
                        .raw: { try ShapeRaw.createUsers(users, at: $0) },
                        .grdbRecords: { try ShapeGRDB.createUsers(users, at: $0) },
                        .kvc: { try ShapeOCD.createUsers(users, at: $0, model: userModel, typed: false) },
                        .typed: { try ShapeOCD.createUsers(users, at: $0, model: userModel, typed: true) },
                    ]))
            shapes.append(
                Shape(
                    name: "users-fetch \(count)", title: "RealmVsSwiftData: users named Jane by age, of \(count)",
                    model: userModel, fill: { try ShapeRaw.fillUsers(users, $0) },
                    ways: [
                        .raw: { try ShapeRaw.fetchUsers(at: $0) },
                        .grdbRecords: { try ShapeGRDB.fetchUsers(at: $0, rows: false) },
                        .grdbRows: { try ShapeGRDB.fetchUsers(at: $0, rows: true) },
                        .kvc: { try ShapeOCD.fetchUsers(at: $0, model: userModel, typed: false) },
                        .typed: { try ShapeOCD.fetchUsers(at: $0, model: userModel, typed: true) },
                    ]))
        }
        let schoolModel = ShapeModels.schools()
        for count in [10_000, 100_000, 200_000].map(sized) {
            let graph = ShapeData.graph(students: count)
            shapes.append(
                Shape(
                    name: "students-create \(count)",
                    title: "RealmVsSwiftData complex: 100 schools, \(count) students, \(graph.grades.count) grades, save once",
                    model: schoolModel, fill: nil,
                    ways: [
                        .raw: { try ShapeRaw.createGraph(graph, at: $0) },
                        .grdbRecords: { try ShapeGRDB.createGraph(graph, at: $0) },
                        .kvc: { try ShapeOCD.createGraph(graph, at: $0, model: schoolModel, typed: false) },
                        .typed: { try ShapeOCD.createGraph(graph, at: $0, model: schoolModel, typed: true) },
                    ]))
        }
        let orderModel = ShapeModels.orders()
        let orders = ShapeData.orders(sized(ShapeData.orderCount))
        let times = max(1, Int(500 * scale))
        shapes.append(
            Shape(
                name: "orders-fetchAll", title: "Northwind: Orders.fetchAll (\(orders.count) rows, 14 columns) \(times) times",
                model: orderModel, fill: { try ShapeRaw.fillOrders(orders, $0) },
                ways: [
                    .raw: { try ShapeRaw.fetchOrders(at: $0, times: times) },
                    .grdbRecords: { try ShapeGRDB.fetchOrders(at: $0, times: times, rows: false) },
                    .grdbRows: { try ShapeGRDB.fetchOrders(at: $0, times: times, rows: true) },
                    .kvc: { try ShapeOCD.fetchOrders(at: $0, model: orderModel, times: times, typed: false) },
                    .typed: { try ShapeOCD.fetchOrders(at: $0, model: orderModel, times: times, typed: true) },
                ]))
        let itemModel = ShapeModels.items()
        for (count, records) in [(sized(20_000), true), (sized(50_000), false)] {
            let grdb: Way = records ? .grdbRecords : .grdbRows
            shapes.append(
                Shape(
                    name: "items-insert \(count)", title: "GRDB: insert \(count) \(records ? "records" : "rows") of 10 integers",
                    model: itemModel, fill: nil,
                    ways: [
                        .raw: { try ShapeRaw.insertItems(count, at: $0) },
                        grdb: { try ShapeGRDB.insertItems(count, at: $0, rows: !records) },
                        .kvc: { try ShapeOCD.insertItems(count, at: $0, model: itemModel, typed: false) },
                        .typed: { try ShapeOCD.insertItems(count, at: $0, model: itemModel, typed: true) },
                    ]))
        }
        for (count, records) in [(sized(100_000), false), (sized(200_000), true)] {
            let grdb: Way = records ? .grdbRecords : .grdbRows
            shapes.append(
                Shape(
                    name: "items-fetch \(count)", title: "GRDB: fetch \(count) \(records ? "records" : "rows") of 10 integers",
                    model: itemModel, fill: { try ShapeRaw.fillItems(count, $0) },
                    ways: [
                        .raw: { try ShapeRaw.fetchItems(at: $0) },
                        grdb: { try ShapeGRDB.fetchItems(at: $0, rows: !records) },
                        .kvc: { try ShapeOCD.fetchItems(at: $0, model: itemModel, typed: false) },
                        .typed: { try ShapeOCD.fetchItems(at: $0, model: itemModel, typed: true) },
                    ]))
        }
        return shapes
    }

    /// Runs `shapes`, `runs` times each, the ways taking turns run by run.
    static func measure(_ shapes: [Shape], runs: Int, scratch: URL, log: (String) -> Void) throws -> [Line] {
        try shapes.map { shape in
            let folder = scratch.appendingPathComponent("shape-\(shape.name.filter(\.isLetter))\(shape.name.filter(\.isNumber))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let template = try makeTemplate(shape, in: folder)
            var seconds: [Way: [Double]] = [:]
            var peaks: [Way: [Double]] = [:]
            var line = Line(shape: shape)
            for run in 1...runs {
                for way in Way.allCases {
                    guard let open = shape.ways[way] else { continue }
                    let url = folder.appendingPathComponent("run-\(run)-\(way.rawValue).sqlite")
                    try FileManager.default.copyItem(at: template, to: url)
                    defer {
                        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
                    }
                    let (time, peak, count) = try measureOnce(open, url: url)
                    if line.count == 0 { line.count = count }
                    guard count == line.count else {
                        throw BenchError("\(shape.name), \(way.title): \(count) where another way had \(line.count)")
                    }
                    seconds[way, default: []].append(time)
                    peaks[way, default: []].append(Double(peak))
                    log("\(shape.name) run \(run)/\(runs) \(way.title): \(Report.milliseconds(time)) ms, peak +\(Report.megabytes(peak)) MB")
                }
            }
            for (way, values) in seconds { line.seconds[way] = Statistics.median(values) }
            for (way, values) in peaks { line.peak[way] = Int(Statistics.median(values)) }
            return line
        }
    }

    /// The shape's empty store made by OpenCoreData, filled by raw SQLite when the shape reads.
    private static func makeTemplate(_ shape: Shape, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("template.sqlite")
        try StoreTemplates.makeEmptyStore(at: url, model: shape.model)
        let db = try RawDatabase(url: url)
        defer { db.close() }
        if let fill = shape.fill {
            try db.execute("BEGIN")
            try fill(db)
            try db.execute("COMMIT")
        }
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return url
    }

    private static func measureOnce(_ open: (URL) throws -> Session, url: URL) throws -> (seconds: Double, peak: Int, count: Int) {
        let session = try open(url)
        Heap.releaseFreeMemory()
        let sampler = HeapPeakSampler()
        let clock = ContinuousClock()
        let start = clock.now
        let count = try session.run()
        let ran = clock.now
        let growth = sampler.stop()
        let releasing = clock.now
        try session.release()
        let elapsed = start.duration(to: ran) + releasing.duration(to: clock.now)
        try session.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds, growth, count)
    }

    /// The table as Markdown.
    static func render(_ lines: [Line], runs: Int) -> String {
        var out = ["Public benchmark shapes: median of \(runs) runs per shape and way; time includes letting go of the results; peak = the heap's highest growth during the run (sampled every half millisecond)", ""]
        out.append(
            "| shape | raw ms | GRDB records ms | GRDB rows ms | OCD KVC ms | OCD typed ms | KVC/raw | typed/raw | typed/GRDB records | peak raw MB | peak GRDB MB | peak KVC MB | peak typed MB | B/object typed |"
        )
        out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for line in lines {
            let time = { (way: Way) in Report.milliseconds(line.seconds[way] ?? .nan) }
            let ratio = { (way: Way, base: Way) in Report.ratio((line.seconds[way] ?? .nan) / (line.seconds[base] ?? .nan)) }
            let peak = { (way: Way) in line.peak[way].map(Report.megabytes) ?? "–" }
            let grdbPeak = line.peak[.grdbRecords] ?? line.peak[.grdbRows]
            let perObject = line.peak[.typed].map { line.count > 0 ? "\(max(0, $0) / line.count)" : "–" } ?? "–"
            out.append(
                "| \(line.shape.title) | \(time(.raw)) | \(time(.grdbRecords)) | \(time(.grdbRows)) | \(time(.kvc)) | \(time(.typed)) | "
                    + "\(ratio(.kvc, .raw)) | \(ratio(.typed, .raw)) | \(ratio(.typed, .grdbRecords)) | \(peak(.raw)) | "
                    + "\(grdbPeak.map(Report.megabytes) ?? "–") | \(peak(.kvc)) | \(peak(.typed)) | \(perObject) |")
        }
        return out.joined(separator: "\n")
    }
}
