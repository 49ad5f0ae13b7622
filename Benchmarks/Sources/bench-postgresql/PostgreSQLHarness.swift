import BenchmarkSupport
import Foundation

/// Runs the cases: a fresh copy of a template schema per run, the ways interleaved run by run so
/// that the machine's drift hits them alike, the wall time of `run` only.
struct PostgreSQLHarness {
    struct Line {
        let benchCase: PostgreSQLCase
        /// Seconds of each run, by way name.
        var seconds: [String: [Double]] = [:]
    }

    let schemas: Schemas
    let data: DataSet
    let runs: Int
    let ways: [String]

    func measure(_ benchCase: PostgreSQLCase, log: (String) -> Void) async throws -> Line {
        var line = Line(benchCase: benchCase)
        let expected = benchCase.expectedCount(in: data)
        for run in 1...runs {
            for way in ways {
                let schema = try await schemas.copy(benchCase.startsEmpty ? Schemas.empty : Schemas.filled)
                let instance = try await open(way, schema: schema)
                let clock = ContinuousClock()
                let start = clock.now
                let count: Int
                do {
                    count = try await instance.run(benchCase)
                } catch {
                    // A connection closed, not dropped: postgres-nio stops a program that drops one.
                    try? await instance.close()
                    throw error
                }
                let elapsed = start.duration(to: clock.now)
                try await instance.close()
                guard count == expected else { throw BenchError("\(benchCase.rawValue), \(way): \(count) rows where \(expected) were expected") }
                if let check = benchCase.verification(in: data) {
                    let found = try await schemas.count(check.sql, in: schema)
                    guard found == check.expected else {
                        throw BenchError("\(benchCase.rawValue), \(way): the database holds \(found) rows where \(check.expected) were expected")
                    }
                }
                try await schemas.drop(schema)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                line.seconds[way, default: []].append(seconds)
                log("\(benchCase.rawValue) run \(run)/\(runs) \(way): \(String(format: "%.1f", seconds * 1000)) ms")
            }
        }
        return line
    }

    private func open(_ way: String, schema: String) async throws -> any PostgreSQLWay {
        switch way {
        case "raw": return try await RawWay.open(server: schemas.server, schema: schema, data: data)
        case "ocd": return try await OpenCoreDataWay.open(server: schemas.server, schema: schema, data: data)
        #if FluentComparison
        case "fluent": return try await FluentWay.open(server: schemas.server, schema: schema, data: data)
        #endif
        default: throw BenchError("no way named \(way)")
        }
    }
}
