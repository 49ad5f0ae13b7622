import ArgumentParser
import BenchmarkSupport
import Foundation
import BenchScratchServer

/// `bench-postgresql`: the PostgreSQL store against raw postgres-nio and Fluent (issue 24), on a
/// throwaway server of its own: the cases' table, then saves per second with several writing
/// processes, then the remote-change latency from one process to another.
@main
struct PostgreSQLBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-postgresql",
        abstract: "OpenCoreData's PostgreSQL store against raw postgres-nio and Fluent on the tutorials' to-do items.")

    @Option(help: "How many TSPItem rows the data set has.")
    var rows: Int = 100_000

    @Option(help: "Runs per case and way; the table shows medians.")
    var runs: Int = 5

    @Option(help: "Run only these cases (comma-separated): \(PostgreSQLCase.allCases.map(\.rawValue).joined(separator: ", ")).")
    var only: String?

    @Option(help: "Ways to run (comma-separated: raw, fluent, ocd). Fluent needs the FluentComparison trait.")
    var ways: String = Ways.available.joined(separator: ",")

    @Option(help: "Processes writing at once in the saves-per-second measurement (0 leaves it out).")
    var writers: Int = 4

    @Option(help: "Seconds each writer writes for.")
    var writerSeconds: Double = 5

    @Option(help: "Saves timed from one process to another's notification (0 leaves it out).")
    var latencySaves: Int = 200

    @Option(name: .customLong("server-setting"), help: "A setting for the scratch server, name=value (repeatable), e.g. log_statement=all to see every statement.")
    var serverSettings: [String] = []

    @OptionGroup(visibility: .private) var role: ChildRole

    func validate() throws {
        guard rows >= 10 else { throw ValidationError("--rows must be at least 10.") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1.") }
        _ = try selectedCases()
        _ = try Ways.select(ways)
    }

    private func selectedCases() throws -> [PostgreSQLCase] {
        guard let only else { return PostgreSQLCase.allCases }
        return try only.split(separator: ",").map { name in
            guard let found = PostgreSQLCase(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown case '\(name)'.")
            }
            return found
        }
    }

    func run() async throws {
        if try await role.runIfChild() { return }
        let log = { (line: String) in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        log("Starting a scratch PostgreSQL server…")
        var settings: [String: String] = [:]
        for setting in serverSettings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--server-setting takes name=value, not '\(setting)'.") }
            settings[parts[0]] = parts[1]
        }
        let scratch = try PostgreSQLScratchServer.launch(settings: settings)
        log("Server: \(scratch.directory) (its log: server.log there)")
        let server = ServerAddress(socketDirectory: scratch.directory, port: scratch.port)
        log("Preparing \(rows) rows…")
        let data = DataSet(rows: rows)
        let schemas = try await Schemas.make(server: server, data: data)
        let harness = PostgreSQLHarness(schemas: schemas, data: data, runs: runs, ways: try Ways.select(ways))
        var table: [PostgreSQLHarness.Line] = []
        for benchCase in try selectedCases() {
            table.append(try await harness.measure(benchCase, log: log))
        }
        var writerLines: [ConcurrentWriters.Line] = []
        if writers > 0 {
            for way in ["raw", "ocd"] {
                log("\(writers) processes saving for \(writerSeconds) s (\(way))…")
                writerLines.append(try await ConcurrentWriters.measure(
                    way: way, processes: writers, seconds: writerSeconds, schemas: schemas))
            }
        }
        var latency: [RemoteLatency.Line] = []
        if latencySaves > 0 {
            for way in ["raw", "ocd"] {
                log("Remote-change latency (\(way))…")
                latency.append(try await RemoteLatency.measure(way: way, saves: latencySaves, schemas: schemas))
            }
        }
        let version = try await schemas.serverVersion()
        try await schemas.close()
        print(PostgreSQLReport.render(
            rows: rows, runs: runs, table: table, writers: writerLines, writerSeconds: writerSeconds, latency: latency,
            serverVersion: version))
    }
}

/// Which ways this build has.
enum Ways {
    #if FluentComparison
    static let available = ["raw", "fluent", "ocd"]
    #else
    static let available = ["raw", "ocd"]
    #endif

    static func select(_ list: String) throws -> [String] {
        try list.split(separator: ",").map { name in
            let name = name.trimmingCharacters(in: .whitespaces)
            guard available.contains(name) else {
                throw ValidationError("Unknown way '\(name)'. This build has: \(available.joined(separator: ", ")) (fluent needs --traits FluentComparison).")
            }
            return name
        }
    }
}
