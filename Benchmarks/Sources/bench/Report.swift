import BenchmarkSupport
import Foundation

/// The table: medians per case and way, the ratios the issue sets targets for, the heap growth.
struct Report {
    struct Row {
        let benchCase: BenchCase
        let measurements: [Harness.Measurements]
    }

    let rows: Int
    let runs: Int
    var lines: [Row] = []

    /// "Not slower than GRDB", allowing for the spread of medians between runs of the same code.
    static let notSlowerThanGRDB = 1.05

    static func median(_ values: [Double]) -> Double { Statistics.median(values) }

    static func milliseconds(_ seconds: Double) -> String { seconds.isNaN ? "–" : String(format: "%.1f", seconds * 1000) }
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_000_000) }
    static func ratio(_ value: Double) -> String { value.isNaN ? "–" : String(format: "%.2f×", value) }

    /// The table as Markdown, the way docs/performance.md carries it.
    func render() -> String {
        var out: [String] = []
        out.append(
            "| case | raw SQLite ms | GRDB ms | GRDB rows ms | OpenCoreData ms | OCD/raw | paired | target | OCD/GRDB | OCD/GRDB rows | heap raw MB | heap GRDB MB | heap OCD MB | B/row raw | B/row OCD | met |"
        )
        out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|")
        for line in lines {
            let times = line.measurements.map { $0.seconds.isEmpty ? Double.nan : Self.median($0.seconds) }
            let heaps = line.measurements.map { $0.heapGrowth.isEmpty ? 0 : Int(Self.median($0.heapGrowth.map(Double.init))) }
            let (raw, grdb, ocd, grdbRows) = (times[0], times[1], times[2], times[3])
            let ratioRaw = ocd / raw
            let ratioGRDB = ocd / grdb
            // Each round's OpenCoreData time over that round's raw time: the machine's
            // speed moves by phases, and a pair shares its phase where two medians need not.
            let paired = Self.median(zip(line.measurements[2].seconds, line.measurements[0].seconds).map { $0 / $1 })
            let met = ratioRaw <= line.benchCase.targetRatio && ratioGRDB <= Self.notSlowerThanGRDB
            let count = line.measurements[2].count
            let counts = [.countPredicate, .countAll, .countAfterWrites].contains(line.benchCase)
            let perRow = { (bytes: Int) in count > 0 && !counts ? "\(max(0, bytes) / count)" : "–" }
            out.append(
                "| \(line.benchCase.rawValue): \(line.benchCase.title) | \(Self.milliseconds(raw)) | \(Self.milliseconds(grdb)) | \(Self.milliseconds(grdbRows)) | \(Self.milliseconds(ocd)) | "
                    + "\(Self.ratio(ratioRaw)) | \(Self.ratio(paired)) | " + String(format: "≤ %.1f×", line.benchCase.targetRatio) + " | \(Self.ratio(ratioGRDB)) | \(Self.ratio(ocd / grdbRows))"
                    + " | \(Self.megabytes(heaps[0])) | \(Self.megabytes(heaps[1])) | \(Self.megabytes(heaps[2])) | \(perRow(heaps[0])) | \(perRow(heaps[2])) | \(met ? "yes" : "no") |"
            )
        }
        if let batched = heapOfOpenCoreData(.iterateBatched), let full = heapOfOpenCoreData(.fetchAll), full > 0 {
            let share = Double(batched) / Double(full) * 100
            out.append("")
            out.append(
                String(
                    format: "iterate-batched heap growth: %.0f%% of fetch-all's (target ≤ 25%%: %@).",
                    share, share <= 25 ? "met" : "missed"))
        }
        // Issue 25's fixed costs, absolute: what a request costs over raw's when rows cost little.
        for (benchCase, allowance) in [(BenchCase.fetchTen, 0.1), (.countAll, 0.2), (.countAfterWrites, 0.2)] {
            guard let line = lines.first(where: { $0.benchCase == benchCase }), !line.measurements[0].seconds.isEmpty,
                let ocd = timeOfOpenCoreData(benchCase)
            else { continue }
            let over = (ocd - Self.median(line.measurements[0].seconds)) * 1000
            out.append("")
            out.append(
                String(
                    format: "%@ over raw SQLite: %.3f ms (target ≤ %.1f ms: %@).", benchCase.rawValue, over, allowance,
                    over <= allowance ? "met" : "missed"))
        }
        // Issue 43's teardown: letting go of a full fetch's results (each way's `release()`
        // alone), at most 25 ms for a million objects; raw SQLite's freeing of its structs beside it.
        if let line = lines.first(where: { $0.benchCase == .fetchAll }),
            !line.measurements[0].releaseSeconds.isEmpty, !line.measurements[2].releaseSeconds.isEmpty
        {
            let raw = Self.median(line.measurements[0].releaseSeconds) * 1000
            let ocd = Self.median(line.measurements[2].releaseSeconds) * 1000
            let grdb = line.measurements[1].releaseSeconds.isEmpty ? Double.nan : Self.median(line.measurements[1].releaseSeconds) * 1000
            let objects = line.measurements[4].releaseSeconds.isEmpty ? Double.nan : Self.median(line.measurements[4].releaseSeconds) * 1000
            // 25 ms a million objects, in proportion for other sizes.
            let teardownTarget = 25 * Double(line.measurements[2].count) / 1_000_000
            out.append("")
            out.append(
                String(
                    format: "fetch-all teardown (release() alone): OpenCoreData %.2f ms, raw SQLite %.2f ms, GRDB %.2f ms, an object per row %.2f ms (target ≤ %.0f ms for %d objects: %@).",
                    ocd, raw, grdb, objects, teardownTarget, line.measurements[2].count, ocd <= teardownTarget ? "met" : "missed"))
            if let bytes = heapOfOpenCoreData(.fetchAll), line.measurements[2].count > 0 {
                let perObject = bytes / line.measurements[2].count
                out.append("")
                out.append("fetch-all bytes per object: \(perObject) (target ≤ 96: \(perObject <= 96 ? "met" : "missed")).")
            }
        }
        out += renderFloor()
        if let asynchronous = timeOfOpenCoreData(.fetchAsync), let synchronous = timeOfOpenCoreData(.fetchAll) {
            let ratio = asynchronous / synchronous
            out.append("")
            out.append(
                String(
                    format: "fetch-async against fetch-all (OpenCoreData, same run): %.2f× (target ≤ 1.10×: %@).",
                    ratio, ratio <= 1.10 ? "met" : "missed"))
        }
        return out.joined(separator: "\n")
    }

    /// The floor under the fetch ratios: raw SQLite's reads made into an object per row
    /// (`RawObjectsWay`), against raw SQLite's structs, beside OpenCoreData's ratio and target.
    /// A target below the floor cannot be met by any API that hands out an object per row.
    private func renderFloor() -> [String] {
        let floored = lines.filter { !$0.measurements[4].seconds.isEmpty && !$0.measurements[0].seconds.isEmpty }
        guard !floored.isEmpty else { return [] }
        var out = [
            "",
            "The floor of an object per row: raw SQLite's reads, each row made into an instance of a plain Swift class of an NSManagedObject's allocation size (`objects`).",
            "",
            "| case | raw SQLite ms | an object per row ms | floor/raw | OpenCoreData/raw | target | target below the floor |",
            "|---|--:|--:|--:|--:|--:|:-:|",
        ]
        for line in floored {
            let raw = Self.median(line.measurements[0].seconds)
            let objects = Self.median(line.measurements[4].seconds)
            let ocd = line.measurements[2].seconds.isEmpty ? Double.nan : Self.median(line.measurements[2].seconds)
            let target = line.benchCase.targetRatio
            out.append(
                "| \(line.benchCase.rawValue) | \(Self.milliseconds(raw)) | \(Self.milliseconds(objects)) | \(Self.ratio(objects / raw)) | "
                    + "\(Self.ratio(ocd / raw)) | " + String(format: "≤ %.1f×", target) + " | \(objects / raw > target ? "yes" : "no") |")
        }
        return out
    }

    private func timeOfOpenCoreData(_ benchCase: BenchCase) -> Double? {
        guard let line = lines.first(where: { $0.benchCase == benchCase }), !line.measurements[2].seconds.isEmpty else {
            return nil
        }
        return Self.median(line.measurements[2].seconds)
    }

    private func heapOfOpenCoreData(_ benchCase: BenchCase) -> Int? {
        guard let line = lines.first(where: { $0.benchCase == benchCase }), !line.measurements[2].heapGrowth.isEmpty else {
            return nil
        }
        return Int(Self.median(line.measurements[2].heapGrowth.map(Double.init)))
    }
}
