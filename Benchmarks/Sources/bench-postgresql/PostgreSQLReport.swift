import BenchmarkSupport
import Foundation

/// The Markdown that docs/performance.md carries: the cases' table, the writers, the latency.
enum PostgreSQLReport {
    /// The issue's ceiling for OpenCoreData over raw postgres-nio, on every case.
    static let targetRatio = 1.5

    static func render(
        rows: Int, runs: Int, table: [PostgreSQLHarness.Line], writers: [ConcurrentWriters.Line], writerSeconds: Double,
        latency: [RemoteLatency.Line], serverVersion: String
    ) -> String {
        var out: [String] = []
        out.append("PostgreSQL store benchmarks: \(rows) rows, median of \(runs) runs per case and way, PostgreSQL \(serverVersion) on a unix socket, \(buildKind) build")
        out.append("")
        out.append("| case | raw postgres-nio ms | Fluent ms | OpenCoreData ms | OCD/raw | target | OCD/Fluent | met |")
        out.append("|---|--:|--:|--:|--:|--:|--:|:-:|")
        for line in table {
            let raw = Statistics.median(line.seconds["raw"] ?? [])
            let fluent = Statistics.median(line.seconds["fluent"] ?? [])
            let ocd = Statistics.median(line.seconds["ocd"] ?? [])
            let met = ocd / raw <= targetRatio && (fluent.isNaN || ocd < fluent)
            out.append(
                "| \(line.benchCase.rawValue): \(line.benchCase.title) | \(ms(raw)) | \(ms(fluent)) | \(ms(ocd)) | \(ratio(ocd / raw)) | ≤ \(targetRatio)× | \(ratio(ocd / fluent)) | \(met ? "yes" : "no") |")
        }
        if !writers.isEmpty {
            out.append("")
            out.append("| \(writers[0].processes) processes saving one new item each time, \(Int(writerSeconds)) s | saves/s in all | per process | OCD/raw |")
            out.append("|---|--:|--:|--:|")
            let raw = writers.first { $0.way == "raw" }?.perSecond ?? .nan
            for line in writers {
                out.append("| \(line.way == "raw" ? "raw postgres-nio (key bump + INSERT, one transaction)" : "OpenCoreData (insert, save)") | \(String(format: "%.0f", line.perSecond)) | \(String(format: "%.0f", line.perSecond / Double(line.processes))) | \(ratio(raw / line.perSecond)) |")
            }
        }
        if !latency.isEmpty {
            out.append("")
            out.append("| one process's save → notification in another | after the save returned: median ms | p99 ms | after the save began: median ms | p99 ms | saves |")
            out.append("|---|--:|--:|--:|--:|--:|")
            for line in latency {
                let name = line.way == "raw" ? "raw postgres-nio (pg_notify in the transaction, LISTEN)" : "OpenCoreData (NSPersistentStoreRemoteChange)"
                let figures = [
                    Statistics.median(line.seconds), Statistics.percentile(line.seconds, 0.99),
                    Statistics.median(line.fromStart), Statistics.percentile(line.fromStart, 0.99),
                ].map { String(format: "%.2f", $0 * 1000) }
                out.append("| \(name) | \(figures.joined(separator: " | ")) | \(line.seconds.count) |")
            }
        }
        return out.joined(separator: "\n")
    }

    #if DEBUG
    static let buildKind = "debug (figures not comparable)"
    #else
    static let buildKind = "release"
    #endif

    static func ms(_ seconds: Double) -> String { seconds.isNaN ? "–" : String(format: "%.1f", seconds * 1000) }
    static func ratio(_ value: Double) -> String { value.isNaN ? "–" : String(format: "%.2f×", value) }
}
