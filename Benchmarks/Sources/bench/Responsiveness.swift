import Foundation
import OpenCoreData

/// The asynchronous fetch's two timing promises (issue 6), measured on the full data set: the
/// context answers within 5 ms throughout the fetch, and a cancellation stops the read within
/// 50 ms. They are absolute times, so they live here rather than in `swift test`, where a loaded
/// machine stretches them; the synchronous fetch, probed the same way, is the comparison.
struct Responsiveness {
    /// The targets, in milliseconds.
    static let longestWaitTarget = 5.0
    static let cancellationTarget = 50.0

    /// One line of the section's table.
    struct Line {
        let what: String
        let milliseconds: Double
        let detail: String
        let target: Double?
    }

    let rows: Int
    let attempts: Int
    private(set) var lines: [Line] = []

    /// How a run cancels the fetch: the three ways Core Data offers.
    enum Cancellation: String, CaseIterable {
        case result = "result.cancel()"
        case progress = "result.progress.cancel()"
        case parentProgress = "parent progress cancel()"
    }

    /// Measures everything on a copy of the filled template in `folder`.
    ///
    /// - Parameters:
    ///   - fixture: The model and templates.
    ///   - folder: A scratch folder for the store copy.
    ///   - attempts: Runs of each measurement; the table shows the median.
    ///   - log: Progress lines.
    /// - Returns: The measurements.
    /// - Throws: What opening the store or fetching throws.
    static func measure(fixture: Fixture, in folder: URL, attempts: Int, log: (String) -> Void) throws -> Responsiveness {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = try fixture.templates.copy(filled: true, into: folder)
        let container = NSPersistentContainer(name: "Bench", managedObjectModel: fixture.model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        defer {
            let coordinator = container.persistentStoreCoordinator
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        var report = Responsiveness(rows: fixture.data.count, attempts: attempts)

        var asynchronous: [ContextProbe.Report] = []
        var synchronous: [ContextProbe.Report] = []
        for attempt in 1...attempts {
            asynchronous.append(try probeAsynchronousFetch(container))
            synchronous.append(probeSynchronousFetch(container))
            log("responsiveness \(attempt)/\(attempts): longest wait \(asynchronous.last!.longest) asynchronous, \(synchronous.last!.longest) synchronous")
        }
        report.lines.append(Line(
            what: "longest wait for the context during an asynchronous fetch of all rows",
            milliseconds: median(asynchronous.map { milliseconds($0.longest) }),
            detail: "\(median(asynchronous.map { Double($0.ticks) }).formatted()) probes, \(String(format: "%.1f", median(asynchronous.map { milliseconds($0.longestRaw) }))) ms with the scheduler's delays",
            target: longestWaitTarget))
        report.lines.append(Line(
            what: "the same probe during a synchronous fetch (for comparison)",
            milliseconds: median(synchronous.map { milliseconds($0.longest) }),
            detail: "the context is busy for the whole fetch", target: nil))

        for how in Cancellation.allCases {
            for sorted in [false, true] {
                var latencies: [Double] = []
                for _ in 0..<attempts {
                    latencies.append(try cancellationLatency(how, sorted: sorted, rows: fixture.data.count, container: container))
                }
                log("cancel \(how.rawValue)\(sorted ? ", sorted" : ""): \(latencies.map { String(format: "%.1f ms", $0) })")
                report.lines.append(Line(
                    what: "completion after \(how.rawValue), \(sorted ? "while SQLite sorts by createdAt" : "while rows flow")",
                    milliseconds: median(latencies),
                    detail: "slowest of \(attempts): \(String(format: "%.1f", latencies.max()!)) ms", target: cancellationTarget))
            }
        }
        return report
    }

    /// The section as Markdown.
    func render() -> String {
        var out = ["| responsiveness (\(rows) rows, median of \(attempts)) | ms | target | met | detail |", "|---|--:|--:|:-:|---|"]
        for line in lines {
            let target = line.target.map { "≤ \(Int($0))" } ?? "–"
            let met = line.target.map { line.milliseconds <= $0 ? "✓" : "✗" } ?? ""
            out.append("| \(line.what) | \(String(format: "%.1f", line.milliseconds)) | \(target) | \(met) | \(line.detail) |")
        }
        return out.joined(separator: "\n")
    }

    /// One asynchronous fetch of every row on a fresh context, probed from just before `execute`
    /// to the completion block.
    private static func probeAsynchronousFetch(_ container: NSPersistentContainer) throws -> ContextProbe.Report {
        let context = container.newBackgroundContext()
        let completed = DispatchSemaphore(value: 0)
        let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) { _ in
            completed.signal()
        }
        let probe = ContextProbe(context)
        var result: NSAsynchronousFetchResult<NSManagedObject>? = try context.performAndWait {
            try context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject>
        }
        completed.wait()
        let report = probe.stop()
        guard result?.finalResult?.count ?? 0 > 0 else { throw BenchError("the asynchronous fetch returned no rows") }
        // Free the objects now, not on another thread during the next attempt.
        result = nil
        context.performAndWait { context.reset() }
        return report
    }

    /// The same probe while the context runs a synchronous fetch of every row.
    private static func probeSynchronousFetch(_ container: NSPersistentContainer) -> ContextProbe.Report {
        let context = container.newBackgroundContext()
        let probe = ContextProbe(context)
        let done = DispatchSemaphore(value: 0)
        context.perform {
            _ = try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            context.reset()
            done.signal()
        }
        done.wait()
        return probe.stop()
    }

    /// Milliseconds from the cancellation to the completion block of a fetch of every row.
    private static func cancellationLatency(_ how: Cancellation, sorted: Bool, rows: Int, container: NSPersistentContainer) throws -> Double {
        let context = container.newBackgroundContext()
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        if sorted { fetchRequest.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)] }
        let completion = Completion()
        let request = NSAsynchronousFetchRequest(fetchRequest: fetchRequest) { _ in completion.signal() }
        let parent = Progress(totalUnitCount: 1)
        let result: NSAsynchronousFetchResult<NSManagedObject> = try context.performAndWait {
            parent.becomeCurrent(withPendingUnitCount: 1)
            defer { parent.resignCurrent() }
            guard let result = try context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject> else {
                throw BenchError("execute returned no asynchronous result")
            }
            return result
        }
        if sorted {
            Thread.sleep(forTimeInterval: 0.05)
        } else {
            let flowing = DispatchSemaphore(value: 0)
            // Cancel once rows flow: after a tenth of them, at most 20,000.
            let threshold = Int64(min(20_000, max(1, rows / 10)))
            result.observeCompletedUnitCount { count in if count >= threshold { flowing.signal() } }
            _ = flowing.wait(timeout: .now() + 60)
        }
        let cancelled = ContinuousClock.now
        switch how {
        case .result: result.cancel()
        case .progress: result.progress?.cancel()
        case .parentProgress: parent.cancel()
        }
        let finished = completion.wait()
        context.performAndWait { context.reset() }
        return milliseconds(finished - cancelled)
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private static func median(_ values: [Double]) -> Double { Report.median(values) }
}

/// A completion block's moment, waited for from another thread.
private final class Completion: @unchecked Sendable {
    // @unchecked Sendable: `at` is written once before `semaphore` is signalled and read after.
    private let semaphore = DispatchSemaphore(value: 0)
    private var at = ContinuousClock.now

    func signal() {
        at = .now
        semaphore.signal()
    }

    func wait() -> ContinuousClock.Instant {
        semaphore.wait()
        return at
    }
}
