import BenchmarkSupport
import Foundation
import OpenCoreData

/// How soon another process's save reaches this one: `bench` starts itself as a writer
/// (`--remote-writer`) on a store this process watches, asks it for one save at a time, and
/// times from the moment the writer's save returned (its monotonic clock, the same as ours) to
/// the `NSPersistentStoreRemoteChange` notification here, and to the transaction read from the
/// history. Also the CPU this process spends watching while nothing happens.
enum RemoteLatency {
    static let idleSeconds = 2.0
    static let saves = 100

    struct Result {
        var notified: [Double] = []
        var watched: [Double] = []
        var idleCPU = 0.0
    }

    static func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func measure(scratch: URL, model: NSManagedObjectModel, log: (String) -> Void) throws -> Result {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let url = scratch.appendingPathComponent("Remote.sqlite")
        let container = try HistoryBench.container(at: url, history: true, remoteChanges: true)
        defer { try? HistoryBench.close(container) }
        let context = container.newBackgroundContext()

        let arrivals = Arrivals()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: container.persistentStoreCoordinator, queue: nil
        ) { _ in arrivals.note(monotonicNanoseconds()) }
        defer { NotificationCenter.default.removeObserver(observer) }

        let writer = try ChildProgram(arguments: ["--remote-writer", url.path])
        defer { writer.finish() }
        let lines = writer.replies

        var result = Result()
        // Watching costs nothing while nothing happens.
        Thread.sleep(forTimeInterval: 0.2)
        let cpuBefore = cpuSeconds()
        let wallBefore = monotonicNanoseconds()
        Thread.sleep(forTimeInterval: idleSeconds)
        result.idleCPU = (cpuSeconds() - cpuBefore) / (Double(monotonicNanoseconds() - wallBefore) / 1e9)

        var token = container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
        let seen = arrivals.count
        for save in 1...saves {
            writer.send("Remote \(save)")
            guard let line = lines.next(), let saved = UInt64(line) else { throw BenchError("the remote writer stopped") }
            guard let arrived = arrivals.wait(for: seen + save, timeout: 5) else {
                throw BenchError("no remote change notification within 5 s of save \(save)")
            }
            result.notified.append(Double(Int64(arrived) - Int64(saved)) / 1e9)
            let transactions = try context.performAndWait {
                let fetched = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token))
                return (fetched as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
            }
            let read = monotonicNanoseconds()
            guard let last = transactions.last else { throw BenchError("the history had no transaction after save \(save)") }
            token = last.token
            result.watched.append(Double(Int64(read) - Int64(saved)) / 1e9)
        }
        return result
    }
}

/// The other process of `RemoteLatency`: saves one item per line read, and answers each with its
/// monotonic clock once the save returned.
enum RemoteWriter {
    static func run(path: String) throws {
        let container = try HistoryBench.container(at: URL(fileURLWithPath: path), history: true)
        let context = container.newBackgroundContext()
        let output = FileHandle.standardOutput
        output.write(Data("ready\n".utf8))
        while let line = readLine() {
            try context.performAndWait {
                let item = TSPItem(context: context)
                item.name = line
                item.createdAt = Date()
                try context.save()
                context.reset()
            }
            output.write(Data("\(RemoteLatency.monotonicNanoseconds())\n".utf8))
        }
        try HistoryBench.close(container)
    }
}
