import Foundation
import Synchronization

/// A throwaway PostgreSQL server: `initdb` into a temporary folder, started with `pg_ctl` on a unix
/// socket there and a free loopback port, stopped when the process ends (and by a watchdog if the
/// process dies). Shared by the test suite and the PostgreSQL benchmark, which both need a server
/// of their own and must never touch one the machine runs.
public final class PostgreSQLScratchServer: Sendable {
    /// The folder holding the data directory, the log and the socket.
    public let directory: String
    public let port: Int
    /// The folder of `initdb`, `pg_ctl` and `postgres`.
    public let binaries: String

    /// Why a server could not start: PostgreSQL's programs are missing, or one of them failed.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    /// One server for a test process, started on first use (each test takes a schema of its
    /// own); the reason when it cannot start.
    public static let shared: Result<PostgreSQLScratchServer, Unavailable> = {
        do {
            return .success(try launch())
        } catch let error as Unavailable {
            return .failure(error)
        } catch {
            return .failure(Unavailable(description: "\(error)"))
        }
    }()

    /// The password of the `ocd` superuser over TCP (the unix socket trusts the local user).
    public static let password = "ocd-secret"

    private init(directory: String, port: Int, binaries: String) {
        self.directory = directory
        self.port = port
        self.binaries = binaries
    }

    /// Creates and starts a server; it stops and its folder goes when the process ends.
    ///
    /// - Parameters:
    ///   - settings: `postgres` settings added to the command line (`-c name=value` each).
    ///   - tls: Whether the server offers TLS, with a self-signed certificate for `localhost` made
    ///     by `openssl` (`certificateFile` names it, for clients that trust it).
    /// - Returns: the running server.
    /// - Throws: `Unavailable` when PostgreSQL's programs are not installed or do not start.
    public static func launch(settings: [String: String] = [:], tls: Bool = false) throws -> PostgreSQLScratchServer {
        guard let binaries = findBinaries() else { throw Unavailable(description: "no initdb found") }
        // A short path: a unix socket's path is limited to 107 bytes.
        let directory = "/tmp/ocdpg-\(UUID().uuidString.prefix(8))"
        let port = freePort()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try password.write(toFile: directory + "/password", atomically: true, encoding: .utf8)
        var settings = settings
        if tls {
            let status = try spawn(
                [
                    "/usr/bin/env", "openssl", "req", "-new", "-x509", "-days", "2", "-nodes", "-subj", "/CN=localhost",
                    "-keyout", directory + "/server.key", "-out", directory + "/server.crt",
                ], output: directory + "/openssl.log", wait: true)
            guard status == 0 else { throw Unavailable(description: "openssl could not make a certificate (status \(status))") }
            chmod(directory + "/server.key", 0o600)
            settings["ssl"] = "on"
            settings["ssl_cert_file"] = directory + "/server.crt"
            settings["ssl_key_file"] = directory + "/server.key"
        }
        let options = settings.sorted { $0.key < $1.key }.map { " -c \($0.key)=\($0.value)" }.joined()
        try options.write(toFile: directory + "/settings", atomically: true, encoding: .utf8)
        let server = PostgreSQLScratchServer(directory: directory, port: port, binaries: binaries)
        try server.asServerUser(["chown", "-R", "postgres", directory], runAsRoot: true)
        try server.run(binaries + "/initdb", [
            "-D", directory + "/data", "-U", "ocd", "--auth-local=trust", "--auth-host=scram-sha-256",
            "--pwfile=\(directory)/password", "-E", "UTF8", "--no-locale",
        ])
        try server.restart()
        server.stopAtExit()
        return server
    }

    /// A hot standby of this server (a read replica): a base backup streamed from it, started on
    /// a port of its own, replaying what this server commits. Stopped when the process ends.
    ///
    /// - Returns: the running standby.
    /// - Throws: `Unavailable` when the backup or the start fails.
    public func launchStandby() throws -> PostgreSQLScratchServer {
        let directory = "/tmp/ocdpg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let standby = PostgreSQLScratchServer(directory: directory, port: Self.freePort(), binaries: binaries)
        try standby.asServerUser(["chown", "-R", "postgres", directory], runAsRoot: true)
        // -R: the backup starts as a standby of this server (standby.signal, primary_conninfo).
        try standby.run(binaries + "/pg_basebackup", [
            "-D", directory + "/data", "-h", self.directory, "-p", String(port), "-U", "ocd", "-R", "-X", "stream", "-c", "fast",
        ])
        try standby.restart()
        standby.stopAtExit()
        return standby
    }

    /// A store URL in `schema` of this server, over the unix socket.
    public func socketURL(schema: String, user: String = "ocd") -> URL {
        URL(string: "postgres://\(user)@/postgres?host=\(directory)&port=\(port)&schema=\(schema)")!
    }

    /// A store URL over TCP on the loopback port, with the password the server asks there.
    ///
    /// - Parameters:
    ///   - host: `127.0.0.1`, or `localhost`, the name the TLS certificate holds.
    ///   - sslmode: libpq's `sslmode`.
    public func tcpURL(schema: String, host: String = "127.0.0.1", sslmode: String = "disable") -> URL {
        URL(string: "postgres://ocd:\(Self.password)@\(host):\(port)/postgres?schema=\(schema)&sslmode=\(sslmode)")!
    }

    /// The server's self-signed certificate, when it was launched with TLS.
    public var certificateFile: String { directory + "/server.crt" }

    /// A schema name nothing else uses.
    public static func newSchemaName() -> String {
        "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Stops the server; the data folder stays for a restart.
    public func stop() throws {
        try run(binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "stop"])
    }

    /// Starts the stopped server again, on the same port and socket. Durability is off (fsync,
    /// synchronous commit): a scratch server's data is thrown away anyway.
    public func restart() throws {
        let settings = (try? String(contentsOfFile: directory + "/settings", encoding: .utf8)) ?? ""
        try run(binaries + "/pg_ctl", [
            "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-o",
            "-k \(directory) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200\(settings)",
            "start",
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
            throw Unavailable(description: "\(command.joined(separator: " ")) failed (\(status)): \(output)")
        }
    }

    /// Runs `argv` with its output in the file `output`, and its exit status when `wait`.
    private static func spawn(_ argv: [String], output: String, wait: Bool) throws -> Int32 {
        let program = try SpawnedProgram.start(argv, stdout: output)
        return wait ? program.wait() : 0
    }

    /// Stops the server when the process exits, and, from a watchdog shell, when it dies.
    private func stopAtExit() {
        Self.running.withLock { $0.append(self) }
        atexit { for server in PostgreSQLScratchServer.running.withLock({ $0 }) { try? server.stop() } }
        let stop = "\(binaries)/pg_ctl -D \(directory)/data -m immediate -w stop; rm -rf \(directory)"
        let asUser = getuid() == 0 ? "runuser -u postgres -- " : ""
        let watch = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(asUser)\(stop) >/dev/null 2>&1; rm -rf \(directory)"
        _ = try? Self.spawn(["/bin/sh", "-c", watch], output: "/dev/null", wait: false)
    }

    private static let running = Mutex<[PostgreSQLScratchServer]>([])

    private static func findBinaries() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        var candidates = path.split(separator: ":").map(String.init)
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            candidates += versions.sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        }
        guard let found = candidates.first(where: {
            FileManager.default.isExecutableFile(atPath: $0 + "/initdb") && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
        }) else { return nil }
        // A folder on PATH may hold links to a few of the programs only (`/usr/local/bin/initdb`):
        // the one they point into has them all (`pg_basebackup` among them).
        return URL(fileURLWithPath: found + "/initdb").resolvingSymlinksInPath().deletingLastPathComponent().path
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
