import Foundation
import PostgreSQLScratchServer
import Testing

@testable import OpenCoreData

/// Three processes on one PostgreSQL store, as three instances of a server app: each inserts,
/// deletes and increments a counter they share for 20 rounds (the increments conflict on purpose
/// and are retried), merging the others' changes from the history that remote change
/// notifications announce. No increment is lost, and every process ends up seeing what the
/// database holds.
@Suite struct PostgreSQLMultiProcessTests {
    static let workers = 3
    static let rounds = 20

    /// The built `postgresql-worker` program, next to the test bundle (swift test builds every
    /// product first).
    static func worker() throws -> URL {
        var folder = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        for _ in 0..<5 {
            folder = folder.deletingLastPathComponent()
            let candidate = folder.appendingPathComponent("postgresql-worker")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        try Test.cancel("skipped: the postgresql-worker program is not built next to the tests")
    }

    /// Runs the worker with `arguments`; its standard output and exit status.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let directory = TemporaryDirectory()
        let (output, errors) = (directory.file("output").path, directory.file("errors").path)
        let status = try SpawnedProgram.start([try worker().path] + arguments, stdout: output, stderr: errors).wait()
        let read = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return (status, read(output), read(errors))
    }

    @Test func threeProcessesAgreeAndLoseNoUpdate() throws {
        let server = try PostgreSQLServer.required()
        let schema = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let url = server.storeURL(schema: schema).absoluteString
        let setup = try Self.run(["setup", url])
        #expect(setup.status == 0, "\(setup.errors)")
        let views = Locked<[Int: [String: Any]]>([:])
        let failures = Locked<[String]>([])
        // A thread each: the workers wait for one another at the end, so all must run at once
        // (a dispatch queue on two cores may run only two).
        let finished = DispatchGroup()
        for worker in 1...Self.workers {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                do {
                    let result = try Self.run(["run", url, String(worker), String(Self.rounds), String(Self.workers)])
                    guard result.status == 0, let line = result.output.split(separator: "\n").last,
                        let view = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    else {
                        failures.withLock { $0.append("worker \(worker): status \(result.status), \(result.errors)") }
                        return
                    }
                    views.withLock { $0[worker] = view }
                } catch {
                    failures.withLock { $0.append("worker \(worker): \(error)") }
                }
            }
        }
        #expect(finished.wait(timeout: .now() + 300) == .success)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let total = Int64(Self.workers * Self.rounds)
        let lastItems = (1...Self.workers).map { "worker-\($0)-\(Self.rounds)" }
        // The database: every increment counted, each worker's last item only.
        let session = try server.session(schema: schema)
        defer { session.close() }
        #expect(try session.run("SELECT ZVALUE FROM ZCOUNTER", []).rows == [[.integer(total)]])
        #expect(try session.run("SELECT ZNAME FROM ZITEM WHERE ZOWNER <> 0 ORDER BY ZNAME", []).rows == lastItems.map { [.text($0)] })
        for (worker, view) in views.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            // Each context agrees with the database: the counter it merged, the items it reads.
            #expect(view["counter"] as? Int == Int(total), "worker \(worker): \(view)")
            #expect(view["items"] as? [String] == lastItems, "worker \(worker): \(view)")
            // It heard the others: notifications came, and their transactions were merged.
            #expect((view["notifications"] as? Int ?? 0) > 0, "worker \(worker): \(view)")
            let others = Set((1...Self.workers).filter { $0 != worker }.map { "worker-\($0)" })
            #expect(others.isSubset(of: Set(view["othersSeen"] as? [String] ?? [])), "worker \(worker): \(view)")
        }
        let conflicts = views.withLock { $0.values.map { $0["conflicts"] as? Int ?? 0 }.reduce(0, +) }
        print("PostgreSQLMultiProcessTests: \(conflicts) conflicting increments retried of \(total)")
    }
}
