import Foundation
import Testing

@testable import OpenCoreData

#if PostgreSQL
import OpenCoreDataPostgreSQL
#endif

/// A throwaway PostgreSQL server for the test process: `initdb` into a temporary folder, started
/// with `pg_ctl` on a unix socket there (and a free loopback port), stopped when the process ends
/// (and by a watchdog if the process dies). Each test gets a schema of its own, so tests run in
/// parallel on one server. Without PostgreSQL's programs the tests that need it are cancelled
/// with "skipped: install postgresql", never passed.
final class PostgreSQLServer: Sendable {
    /// The folder holding the data directory, the log and the socket.
    let directory: String
    let port: Int
    let binaries: String

    /// The server, started on first use; nil (with why) when it cannot start.
    static let shared: Result<PostgreSQLServer, ServerUnavailable> = start()

    struct ServerUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The running server, or the test is cancelled with what to install.
    static func required() throws -> PostgreSQLServer {
        #if PostgreSQL
        switch shared {
        case .success(let server): return server
        case .failure(let reason): try Test.cancel("skipped: install postgresql (initdb, pg_ctl on PATH): \(reason)")
        }
        #else
        try Test.cancel("skipped: built without the package's PostgreSQL trait (postgres-nio)")
        #endif
    }

    /// A store URL in a new schema of this server, over the unix socket.
    func storeURL(schema: String = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(), user: String = "ocd") -> URL {
        registerStoreType()
        return URL(string: "postgres://\(user)@/postgres?host=\(directory)&port=\(port)&schema=\(schema)")!
    }

    /// A store URL over TCP on the loopback port, with the password the server asks there.
    func tcpStoreURL(schema: String = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()) -> URL {
        registerStoreType()
        return URL(string: "postgres://ocd:\(Self.password)@127.0.0.1:\(port)/postgres?schema=\(schema)&sslmode=disable")!
    }

    /// Reading the type name registers the store with postgres-nio.
    private func registerStoreType() {
        #if PostgreSQL
        _ = NSPostgreSQLStoreType
        #endif
    }

    private init(directory: String, port: Int, binaries: String) {
        self.directory = directory
        self.port = port
        self.binaries = binaries
    }

    private static func start() -> Result<PostgreSQLServer, ServerUnavailable> {
        do {
            return .success(try launch())
        } catch let error as ServerUnavailable {
            return .failure(error)
        } catch {
            return .failure(ServerUnavailable(description: "\(error)"))
        }
    }

    /// A server of the test's own, for what must not disturb the shared one (a restart); stopped
    /// and removed when the process ends.
    static func makePrivate() throws -> PostgreSQLServer {
        _ = try required()
        return try launch()
    }

    /// The password of the `ocd` superuser over TCP (the unix socket trusts the local user).
    static let password = "ocd-secret"

    private static func launch() throws -> PostgreSQLServer {
        guard let binaries = findBinaries() else { throw ServerUnavailable(description: "no initdb found") }
        // A short path: a unix socket's path is limited to 107 bytes.
        let directory = "/tmp/ocdpg-\(UUID().uuidString.prefix(8))"
        let port = freePort()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try password.write(toFile: directory + "/password", atomically: true, encoding: .utf8)
        let server = PostgreSQLServer(directory: directory, port: port, binaries: binaries)
        try server.asServerUser(["chown", "-R", "postgres", directory], runAsRoot: true)
        try server.run(binaries + "/initdb", [
            "-D", directory + "/data", "-U", "ocd", "--auth-local=trust", "--auth-host=scram-sha-256",
            "--pwfile=\(directory)/password", "-E", "UTF8", "--no-locale",
        ])
        try server.restart()
        server.stopAtExit()
        return server
    }

    /// A session of the store's driver on this server, for what a test does behind the store's back.
    func session(schema: String) throws -> any PostgreSQLSession {
        registerStoreType()
        let driver = try #require(PostgreSQLStoreInstaller.driver.withLock { $0 })
        let session = try driver.connect(try PostgreSQLEndpoint(url: storeURL(schema: schema)))
        _ = try session.run("SET search_path TO \(schema)", [])
        return session
    }

    /// Stops the server; the data folder stays for a restart.
    func stop() throws {
        try run(binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "stop"])
    }

    /// Starts the stopped server again, on the same port and socket.
    func restart() throws {
        try run(binaries + "/pg_ctl", [
            "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-o",
            "-k \(directory) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200", "start",
        ])
    }

    /// Runs one of the server's programs as the `postgres` user when this process is root
    /// (`initdb` refuses root), else as ourselves.
    private func run(_ program: String, _ arguments: [String]) throws {
        try asServerUser([program] + arguments, runAsRoot: false)
    }

    private func asServerUser(_ command: [String], runAsRoot: Bool) throws {
        let isRoot = getuid() == 0
        if runAsRoot, !isRoot { return }
        let argv = isRoot && !runAsRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : ["/usr/bin/env"] + command
        let log = directory + "/command.log"
        let status = try Self.spawn(argv, output: log, wait: true)
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ServerUnavailable(description: "\(command.joined(separator: " ")) failed (\(status)): \(output)")
        }
    }

    /// Runs `argv` with its output in the file `output`, and its exit status when `wait`.
    /// posix_spawn and waitpid rather than Foundation's `Process`, whose wait on Linux can miss the
    /// exit of a program that leaves a daemon behind (`pg_ctl start`) and hang.
    private static func spawn(_ argv: [String], output: String, wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, arguments, environ)
        guard spawned == 0 else { throw ServerUnavailable(description: "\(argv[0]) could not start (errno \(spawned))") }
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Stops the server when the test process exits, and, from a watchdog shell, when it dies.
    private func stopAtExit() {
        PostgreSQLServer.running.withLock { $0.append(self) }
        atexit { for server in PostgreSQLServer.running.withLock({ $0 }) { try? server.stop() } }
        let stop = "\(binaries)/pg_ctl -D \(directory)/data -m immediate -w stop; rm -rf \(directory)"
        let asUser = getuid() == 0 ? "runuser -u postgres -- " : ""
        let watch = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(asUser)\(stop) >/dev/null 2>&1; rm -rf \(directory)"
        _ = try? Self.spawn(["/bin/sh", "-c", watch], output: "/dev/null", wait: false)
    }

    private static let running = Locked<[PostgreSQLServer]>([])

    private static func findBinaries() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        var candidates = path.split(separator: ":").map(String.init)
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            candidates += versions.sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") }
    }

    /// A loopback port nothing listens on now.
    private static func freePort() -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { return 54_329 }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
