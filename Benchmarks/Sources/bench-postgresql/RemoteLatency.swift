import BenchmarkSupport
import Foundation
import OpenCoreData
import PostgresNIO

/// How soon one process hears of another's commit: this process asks a child (`--child
/// remote-writer`) for one save at a time and times from the moment the child's save returned (its
/// monotonic clock, the same as ours), and from the moment it began, to the notification here: `NSPersistentStoreRemoteChange`
/// for OpenCoreData, postgres-nio's LISTEN for raw.
enum RemoteLatency {
    struct Line {
        let way: String
        /// From the moment the save returned to the notification's arrival (negative when the
        /// notification came first: PostgreSQL delivers it at the commit, before the reply).
        var seconds: [Double] = []
        /// From the moment the save began: the whole trip, the save itself included.
        var fromStart: [Double] = []
    }

    static func measure(way: String, saves: Int, schemas: Schemas) async throws -> Line {
        let schema = try await schemas.copy(Schemas.empty)
        let arrivals = Arrivals()
        let line: Line
        if way == "raw" {
            let connection = try await RawWay.connect(schemas.server, schema: schema)
            do {
                line = try await connection.listen(on: Saver.rawChannel) { notifications in
                    let listening = Task {
                        for try await _ in notifications { arrivals.note(MonotonicClock.nanoseconds()) }
                    }
                    defer { listening.cancel() }
                    return try await timeSaves(way: way, saves: saves, server: schemas.server, schema: schema, arrivals: arrivals)
                }
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } else {
            let container = try OpenCoreDataWay.container(url: schemas.server.storeURL(schema: schema), options: Saver.sharedStoreOptions)
            let observer = NotificationCenter.default.addObserver(
                forName: .NSPersistentStoreRemoteChange, object: container.persistentStoreCoordinator, queue: nil
            ) { _ in arrivals.note(MonotonicClock.nanoseconds()) }
            defer {
                NotificationCenter.default.removeObserver(observer)
                let coordinator = container.persistentStoreCoordinator
                for store in coordinator.persistentStores { try? coordinator.remove(store) }
            }
            line = try await timeSaves(way: way, saves: saves, server: schemas.server, schema: schema, arrivals: arrivals)
        }
        try await schemas.drop(schema)
        return line
    }

    /// Starts the child and times its saves, one at a time, to their arrival here.
    private static func timeSaves(way: String, saves: Int, server: ServerAddress, schema: String, arrivals: Arrivals) async throws -> Line {
        let writer = try ChildProgram(arguments: ChildRole.arguments(role: "remote-writer", way: way, server: server, schema: schema))
        defer { writer.finish() }
        let lines = writer.replies
        var line = Line(way: way)
        // A first save, not counted: connections and statements warm.
        for save in 0...saves {
            let seen = arrivals.count
            writer.send("Remote \(save)")
            guard let reply = lines.next()?.split(separator: " "), reply.count == 2, let started = UInt64(reply[0]), let saved = UInt64(reply[1])
            else { throw BenchError("the remote writer stopped") }
            guard let arrived = arrivals.wait(for: seen + 1, timeout: 5) else {
                throw BenchError("no notification within 5 s of save \(save) (\(way))")
            }
            if save > 0 {
                line.seconds.append(Double(Int64(arrived) - Int64(saved)) / 1e9)
                line.fromStart.append(Double(Int64(arrived) - Int64(started)) / 1e9)
            }
        }
        return line
    }
}
