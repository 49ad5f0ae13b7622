import BenchmarkSupport
import Foundation
import OpenCoreData

/// One call of a typed property accessor against the KVC call a tutorial writes instead, on
/// objects already in memory: `item.name` against `item.value(forKey: "name") as? String`,
/// `item.done = true` against `item.setValue(true, forKey: "done")`. Issue 21's target: the typed
/// call at least 5× faster. The objects are few enough to stay in the processor's cache, and
/// are passed over many times, so that the figure is the call's cost rather than the memory's
/// (which both forms pay alike when a loop walks a million objects once: see `typed-read`).
///
/// Every call on an object the loop reads from memory also costs the loop a retain and a release
/// of the object, which no accessor can avoid: the same loop with an empty call the optimizer
/// can't see into is measured too, the least any accessor's call can cost there.
enum AccessorCalls {
    struct Line {
        let title: String
        let kvcNanoseconds: Double
        let typedNanoseconds: Double
        /// The same loop with an empty call in place of the accessor.
        let emptyCallNanoseconds: Double
        var speedUp: Double { kvcNanoseconds / typedNanoseconds }
    }

    /// A call the optimizer can't see into (which of two it is is decided at run time), so that
    /// the loop holding it retains and releases each object as it does around an accessor's call.
    private static let emptyCall: @Sendable (TSPItem) -> Int = {
        let one: @Sendable (TSPItem) -> Int = { _ in 1 }
        let two: @Sendable (TSPItem) -> Int = { _ in 2 }
        return ProcessInfo.processInfo.environment["OPENCOREDATA_BENCH_UNSET"] == nil ? one : two
    }()

    static let target = 5.0

    /// Passes over the objects per measurement.
    static let passes = 1_000

    /// Medians of `runs` measurements of `passes` passes over `count` inserted objects, per call.
    static func measure(model: NSManagedObjectModel, data: DataSet, count: Int, runs: Int) throws -> [Line] {
        let container = NSPersistentContainer(name: "Accessors", managedObjectModel: model)
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        let context = container.newBackgroundContext()
        return context.performAndWait {
            let items = (0..<count).map { i in
                let item = TSPItem(context: context)
                item.name = data.names[i % data.count]
                item.createdAt = data.dates[i % data.count]
                item.done = data.done[i % data.count]
                return item
            }
            let names = items.map { $0.name! }
            let call = emptyCall
            let empty = median(runs: runs) { time(items) { item, _ in call(item) } }
            // Each pair written out, so that the loops inline the calls they time: a closure
            // kept in an array costs a retain and an indirect call per object, which would be
            // counted as the accessor's.
            func line(_ title: String, _ kvc: () -> Double, _ typed: () -> Double) -> Line {
                Line(
                    title: title, kvcNanoseconds: median(runs: runs, kvc), typedNanoseconds: median(runs: runs, typed),
                    emptyCallNanoseconds: empty)
            }
            return [
                line("get name (String?)",
                     { time(items) { item, _ in (item.value(forKey: "name") as? String)?.utf8.count ?? 0 } },
                     { time(items) { item, _ in item.name?.utf8.count ?? 0 } }),
                line("get createdAt (Date?)",
                     { time(items) { item, _ in (item.value(forKey: "createdAt") as? Date) == nil ? 0 : 1 } },
                     { time(items) { item, _ in item.createdAt == nil ? 0 : 1 } }),
                line("get done (Bool)",
                     { time(items) { item, _ in (item.value(forKey: "done") as? Bool) == true ? 1 : 0 } },
                     { time(items) { item, _ in item.done ? 1 : 0 } }),
                line("set name (String?)",
                     { time(items) { item, i in item.setValue(names[i], forKey: "name"); return 1 } },
                     { time(items) { item, i in item.name = names[i]; return 1 } }),
                line("set done (Bool)",
                     { time(items) { item, i in item.setValue(i & 1 == 0, forKey: "done"); return 1 } },
                     { time(items) { item, i in item.done = i & 1 == 0; return 1 } }),
            ]
        }
    }

    /// Nanoseconds per call of `call` over `items`.
    @inline(__always)
    private static func time(_ items: [TSPItem], _ call: (TSPItem, Int) -> Int) -> Double {
        let clock = ContinuousClock()
        var sink = 0
        let start = clock.now
        items.withUnsafeBufferPointer { buffer in
            for _ in 0..<passes {
                for index in buffer.indices { sink &+= call(buffer[index], index) }
            }
        }
        let elapsed = start.duration(to: clock.now)
        precondition(sink != 0)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds * 1e9 / Double(items.count * passes)
    }

    private static func median(runs: Int, _ measure: () -> Double) -> Double {
        Report.median((0..<runs).map { _ in measure() })
    }

    static func render(_ lines: [Line], count: Int, runs: Int) -> String {
        var out = [
            "Typed accessors against KVC, per call (\(count) objects in memory, \(passes) passes over them, median of \(runs) measurements):",
            "",
            "| call | KVC ns | typed ns | typed speed-up | target | met | empty call ns | typed / empty call |",
            "|---|--:|--:|--:|--:|:-:|--:|--:|",
        ]
        for line in lines {
            out.append(
                "| \(line.title) | \(String(format: "%.1f", line.kvcNanoseconds)) | \(String(format: "%.1f", line.typedNanoseconds)) | "
                    + "\(String(format: "%.1f×", line.speedUp)) | ≥ \(String(format: "%.0f×", target)) | \(line.speedUp >= target ? "yes" : "no") | "
                    + "\(String(format: "%.1f", line.emptyCallNanoseconds)) | \(String(format: "%.2f×", line.typedNanoseconds / line.emptyCallNanoseconds)) |")
        }
        return out.joined(separator: "\n")
    }
}
