import BenchmarkSupport
import Foundation

/// Saves per second of several processes writing to one store at once, as app instances behind a
/// load balancer do: each process saves one new item at a time for the same few seconds; every
/// save allocates its key from the one Z_PRIMARYKEY row all of them share.
enum ConcurrentWriters {
    struct Line {
        let way: String
        let processes: Int
        let perSecond: Double
    }

    static func measure(way: String, processes: Int, seconds: Double, schemas: Schemas) async throws -> Line {
        let schema = try await schemas.copy(Schemas.empty)
        // The store's history tables exist before the writers open it, so that none of them
        // races another to create them.
        if way == "ocd" { try await Saver.open(way: way, server: schemas.server, schema: schema).close() }
        // Time to start every process and open its store before they all begin.
        let startAt = Date().timeIntervalSince1970 + 2 + Double(processes) * 0.5
        var children: [(Process, Pipe)] = []
        for _ in 0..<processes {
            let process = Process()
            process.executableURL = Bundle.main.executableURL
            process.arguments = ChildRole.arguments(role: "writer", way: way, server: schemas.server, schema: schema)
                + ["--seconds", String(seconds), "--start-at", String(startAt)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            children.append((process, output))
        }
        var saves = 0
        for (process, output) in children {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw BenchError("a \(way) writer failed (status \(process.terminationStatus)): \(text)")
            }
            saves += count
        }
        let stored = try await schemas.count("SELECT COUNT(*) FROM ztspitem", in: schema)
        guard stored == saves else { throw BenchError("\(way) writers: \(saves) saves reported, \(stored) rows stored") }
        try await schemas.drop(schema)
        return Line(way: way, processes: processes, perSecond: Double(saves) / seconds)
    }
}
