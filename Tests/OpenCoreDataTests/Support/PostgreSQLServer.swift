import Foundation
import PostgreSQLScratchServer
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL


/// The test process's throwaway PostgreSQL server (`PostgreSQLScratchServer`), started on first use.
/// Each test gets a schema of its own, so tests run in parallel on one server. Without PostgreSQL's
/// programs the tests that need it are cancelled with "skipped: install postgresql", never passed.
final class PostgreSQLServer: Sendable {
    private let server: PostgreSQLScratchServer

    /// The folder holding the data directory, the log and the socket.
    var directory: String { server.directory }
    var port: Int { server.port }

    /// The server, started on first use; the reason when it cannot start.
    static let shared: Result<PostgreSQLServer, PostgreSQLScratchServer.Unavailable> = start()

    /// The running server, or the test is cancelled with what to install.
    static func required() throws -> PostgreSQLServer {
        #if PostgreSQL
        switch shared {
        case .success(let server):
            // Tests that write their own URL (a wrong password, a bad one) need the type too:
            // registered here, not by whichever test happened to ask for a URL first.
            registerStoreType()
            return server
        case .failure(let reason): try Test.cancel("skipped: install postgresql (initdb, pg_ctl on PATH): \(reason)")
        }
        #else
        try Test.cancel("skipped: built without the package's PostgreSQL trait (postgres-nio)")
        #endif
    }

    /// A server of the test's own, for what must not disturb the shared one (a restart); stopped
    /// and removed when the process ends.
    static func makePrivate(tls: Bool = false) throws -> PostgreSQLServer {
        _ = try required()
        return PostgreSQLServer(server: try PostgreSQLScratchServer.launch(tls: tls))
    }

    /// A hot standby of this server (a read replica), stopped when the process ends.
    func makeStandby() throws -> PostgreSQLServer {
        PostgreSQLServer(server: try server.launchStandby())
    }

    /// The password of the `ocd` superuser over TCP (the unix socket trusts the local user).
    static var password: String { PostgreSQLScratchServer.password }

    private init(server: PostgreSQLScratchServer) {
        self.server = server
    }

    private static func start() -> Result<PostgreSQLServer, PostgreSQLScratchServer.Unavailable> {
        do {
            return .success(PostgreSQLServer(server: try PostgreSQLScratchServer.launch()))
        } catch let error as PostgreSQLScratchServer.Unavailable {
            return .failure(error)
        } catch {
            return .failure(PostgreSQLScratchServer.Unavailable(description: "\(error)"))
        }
    }

    /// A store URL in a new schema of this server, over the unix socket.
    func storeURL(schema: String = PostgreSQLScratchServer.newSchemaName(), user: String = "ocd") -> URL {
        Self.registerStoreType()
        return server.socketURL(schema: schema, user: user)
    }

    /// A store URL over TCP on the loopback port, with the password the server asks there.
    func tcpStoreURL(schema: String = PostgreSQLScratchServer.newSchemaName(), host: String = "127.0.0.1", sslmode: String = "disable") -> URL {
        Self.registerStoreType()
        return server.tcpURL(schema: schema, host: host, sslmode: sslmode)
    }

    /// Reading the type name registers the store with postgres-nio.
    private static func registerStoreType() {
        #if PostgreSQL
        _ = NSPostgreSQLStoreType
        #endif
    }

    /// A session of the store's driver on this server, for what a test does behind the store's back.
    func session(schema: String) throws -> any PostgreSQLSession {
        Self.registerStoreType()
        let driver = try #require(PostgreSQLStoreInstaller.driver.withLock { $0 })
        let session = try driver.connect(try PostgreSQLEndpoint(url: storeURL(schema: schema)))
        _ = try session.run("SET search_path TO \(schema)", [])
        return session
    }

    /// Stops the server; the data folder stays for a restart.
    func stop() throws { try server.stop() }

    /// Starts the stopped server again, on the same port and socket.
    func restart() throws { try server.restart() }
}
