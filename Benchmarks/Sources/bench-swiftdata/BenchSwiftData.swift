import ArgumentParser
import BenchmarkSupport
import Foundation
import GRDBSQLite
import OpenCoreData
import OpenSwiftData

/// OpenSwiftData against the same work through OpenCoreData's generated classes and raw SQLite,
/// in one run (issue 42's targets: each case ≤ 1.25× the generated classes, bytes per fetched
/// model ≤ 1.5× a managed object's), and the shapes of the public RealmVsSwiftData benchmark.
@main
struct BenchSwiftData: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench-swiftdata", abstract: "OpenSwiftData's benchmark (docs/performance.md).")

    @Option(parsing: .upToNextOption, help: "Rows per case.") var rows: [Int] = [200_000, 1_000_000]
    @Option(help: "Measurements per case (the median is shown).") var runs = 3
    @Option(parsing: .upToNextOption, help: "Users for the RealmVsSwiftData shapes.") var users: [Int] = [100_000, 1_000_000]

    func run() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-swiftdata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for count in rows {
            let data = DataSet(rows: count)
            var table = CaseTable(count: count)
            // The ways take turns within each run, so that a slower minute of the machine falls
            // on all three, and each ratio is taken between neighbouring measurements.
            for run in 0..<runs {
                for way in Way.allCases {
                    FileHandle.standardError.write(Data("\(count) rows, run \(run + 1), \(way.rawValue)…\n".utf8))
                    table.add(way, try WayRun.measure(way, data: data, folder: folder.appendingPathComponent("\(way)-\(count)-\(run)")))
                }
            }
            print(table.markdown(runs: runs))
        }
        for count in users {
            FileHandle.standardError.write(Data("\(count) users…\n".utf8))
            print(try UserShapes.measure(count: count, folder: folder.appendingPathComponent("users-\(count)")))
        }
    }
}

/// The three ways one case runs.
enum Way: String, CaseIterable {
    case raw = "raw SQLite"
    case typed = "OpenCoreData generated classes"
    case swiftData = "OpenSwiftData"
}

/// One measurement of every case for a way: seconds, and bytes per fetched object.
struct WayResult {
    var insert: Double
    var fetchIterate: Double
    var count: Double
    var bytesPerObject: Double
}

/// A case table: per way, the median of each case, and ratios to the generated classes.
struct CaseTable {
    let count: Int
    private var results: [Way: [WayResult]] = [:]

    init(count: Int) { self.count = count }

    mutating func add(_ way: Way, _ result: WayResult) { results[way, default: []].append(result) }

    private func median(_ way: Way, _ value: (WayResult) -> Double) -> Double {
        Statistics.median((results[way] ?? []).map(value))
    }

    /// The median of the runs' ratios of `way` to `base`, each between measurements of one run.
    private func ratio(_ way: Way, to base: Way, _ value: (WayResult) -> Double) -> Double {
        Statistics.median(zip(results[way] ?? [], results[base] ?? []).map { value($0) / value($1) })
    }

    func markdown(runs: Int) -> String {
        let cases: [(String, (WayResult) -> Double, String)] = [
            ("insert N, one save", \.insert, "s"),
            ("fetch `!done` sorted by date, read every property", \.fetchIterate, "s"),
            ("count `!done`", \.count, "ms"),
            ("heap bytes per fetched object", \.bytesPerObject, "B"),
        ]
        var lines = [
            "\(count) rows (median of \(runs); a ratio is the median of the runs' ratios):", "",
            "| case | raw SQLite | generated classes | OpenSwiftData | OpenSwiftData / generated | OpenSwiftData / raw |",
            "|---|---|---|---|---|---|",
        ]
        for (title, value, unit) in cases {
            let raw = median(.raw, value), typed = median(.typed, value), swiftData = median(.swiftData, value)
            let shown = { (x: Double) -> String in
                x.isNaN ? "–" : unit == "ms" ? String(format: "%.1f ms", x * 1000) : unit == "B" ? String(format: "%.0f B", x) : String(format: "%.3f s", x)
            }
            let toRaw = ratio(.swiftData, to: .raw, value)
            lines.append(
                "| \(title) | \(shown(raw)) | \(shown(typed)) | \(shown(swiftData)) | \(String(format: "%.2f×", ratio(.swiftData, to: .typed, value))) | "
                    + (toRaw.isNaN ? "–" : String(format: "%.2f×", toRaw)) + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Seconds `body` takes.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = MonotonicClock.nanoseconds()
    try body()
    return Double(MonotonicClock.nanoseconds() - start) / 1e9
}
