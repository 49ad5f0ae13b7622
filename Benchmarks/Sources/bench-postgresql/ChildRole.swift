import ArgumentParser
import BenchmarkSupport
import Foundation

/// The hidden options with which the benchmark starts itself as another process: a writer of the
/// saves-per-second measurement, or the saving side of the remote-change latency.
struct ChildRole: ParsableArguments {
    @Option(help: .hidden) var child: String?
    @Option(help: .hidden) var childWay: String = "ocd"
    @Option(help: .hidden) var socket: String = ""
    @Option(help: .hidden) var port: Int = 0
    @Option(help: .hidden) var schema: String = ""
    @Option(help: .hidden) var seconds: Double = 0
    /// When writers start, in seconds since 1970, so that they all write at once.
    @Option(help: .hidden) var startAt: Double = 0

    var server: ServerAddress { ServerAddress(socketDirectory: socket, port: port) }

    /// Runs the child's part when this process is one.
    ///
    /// - Returns: whether it was a child.
    func runIfChild() async throws -> Bool {
        switch child {
        case nil: return false
        case "writer":
            let saver = try await Saver.open(way: childWay, server: server, schema: schema)
            while Date().timeIntervalSince1970 < startAt { try await Task.sleep(for: .milliseconds(1)) }
            let end = startAt + seconds
            var saves = 0
            while Date().timeIntervalSince1970 < end {
                try await saver.save(name: "Writer \(getpid()) \(saves)")
                saves += 1
            }
            try await saver.close()
            FileHandle.standardOutput.write(Data("\(saves)\n".utf8))
        case "remote-writer":
            let saver = try await Saver.open(way: childWay, server: server, schema: schema)
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            while let line = readLine() {
                let started = MonotonicClock.nanoseconds()
                try await saver.save(name: line)
                FileHandle.standardOutput.write(Data("\(started) \(MonotonicClock.nanoseconds())\n".utf8))
            }
            try await saver.close()
        default: throw BenchError("unknown child role \(child ?? "")")
        }
        return true
    }

    /// The arguments that start `role` as a child on `schema`.
    static func arguments(role: String, way: String, server: ServerAddress, schema: String) -> [String] {
        ["--child", role, "--child-way", way, "--socket", server.socketDirectory, "--port", String(server.port), "--schema", schema]
    }
}
