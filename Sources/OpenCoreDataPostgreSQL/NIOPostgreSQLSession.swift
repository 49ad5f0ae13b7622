#if PostgreSQL
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import OpenCoreData
import PostgresNIO

/// One postgres-nio connection, used synchronously: the store calls it from a context's queue (never
/// an event-loop thread) and waits for each statement. postgres-nio's pool is asynchronous and
/// hides a failed login behind its retry loop; the store keeps its own few sessions instead.
final class NIOPostgreSQLSession: PostgreSQLSession, @unchecked Sendable {
    // @unchecked Sendable: `connection` is immutable; postgres-nio's connection is itself safe to
    // use from any thread, and the store runs one statement at a time on a session.
    private let connection: PostgresConnection
    private let endpoint: PostgreSQLEndpoint
    private static let logger = Logger(label: "OpenCoreData.PostgreSQL.wire", factory: { _ in SwiftLogNoOpLogHandler() })

    private init(connection: PostgresConnection, endpoint: PostgreSQLEndpoint) {
        self.connection = connection
        self.endpoint = endpoint
    }

    static func connect(_ endpoint: PostgreSQLEndpoint) throws -> NIOPostgreSQLSession {
        var configuration: PostgresConnection.Configuration
        if let directory = endpoint.socketDirectory {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: directory + "/.s.PGSQL.\(endpoint.port)", username: endpoint.user, password: endpoint.password,
                database: endpoint.database)
        } else {
            configuration = PostgresConnection.Configuration(
                host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password,
                database: endpoint.database, tls: try tls(endpoint))
        }
        configuration.options.connectTimeout = .milliseconds(Int64(endpoint.connectTimeout * 1000))
        // Dates travel as numbers, but a server's time zone must not change what `now()` means
        // to history rows; statement_timeout bounds every statement when the URL asks.
        configuration.options.additionalStartupParameters = [("TimeZone", "UTC")]
        if endpoint.statementTimeout > 0 {
            configuration.options.additionalStartupParameters.append(("statement_timeout", String(endpoint.statementTimeout)))
        }
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: nextID(), logger: logger
            ).wait()
            return NIOPostgreSQLSession(connection: connection, endpoint: endpoint)
        } catch {
            throw lost(error, endpoint: endpoint, connecting: true)
        }
    }

    /// libpq's meaning of each `sslmode`: `prefer` and `require` encrypt without checking the
    /// server's certificate, `verify-ca` checks that a trusted authority signed it, `verify-full`
    /// also that it names the host.
    private static func tls(_ endpoint: PostgreSQLEndpoint) throws -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch endpoint.tls {
        case .disable, .allow: return .disable
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        let context = try NIOSSLContext(configuration: configuration)
        return endpoint.tls == .prefer ? .prefer(context) : .require(context)
    }

    private static let ids = NIOLockedValueBox(0)
    private static func nextID() -> Int { ids.withLockedValue { $0 += 1; return $0 } }

    var isClosed: Bool { connection.isClosed }

    func run(_ sql: String, _ binds: [PostgreSQLValue]) throws -> PostgreSQLResult {
        var bindings = PostgresBindings(capacity: binds.count)
        for value in binds {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .boolean(let flag): bindings.append(flag)
            case .text(let text): bindings.append(text)
            case .bytes(let data): bindings.append(ByteBuffer(bytes: data))
            }
        }
        // Each row becomes the store's values as it arrives, on the connection's event loop while
        // the server is still sending: the caller's thread gets them ready, and postgres-nio's
        // rows are never all held at once.
        let collector = RowCollector()
        let metadata: PostgresQueryMetadata
        do {
            metadata = try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Self.logger) { row in
                try collector.append(row)
            }.wait()
        } catch {
            throw Self.translate(error, endpoint: endpoint)
        }
        return PostgreSQLResult(rows: collector.rows, affectedRows: metadata.rows ?? collector.rows.count)
    }

    /// The rows of one statement, filled on the event loop.
    private final class RowCollector: @unchecked Sendable {
        // @unchecked Sendable: written only by postgres-nio's row callback, one row after another
        // on the connection's event loop, and read after the query's future completed.
        var rows: [[PostgreSQLValue]] = []

        func append(_ row: PostgresRow) throws {
            var values: [PostgreSQLValue] = []
            values.reserveCapacity(row.count)
            for cell in row { values.append(try NIOPostgreSQLSession.value(of: cell)) }
            rows.append(values)
        }
    }

    func listen(on channel: String, _ handler: @escaping @Sendable (String) -> Void) throws {
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        // A statement after LISTEN makes sure the server has registered it before the store goes on.
        _ = try run("SELECT 1", [])
    }

    func close() {
        guard !connection.isClosed else { return }
        // On the connection's own event loop waiting cannot end (NIO stops the program): the
        // last reference to a change listener can go inside its notification callback there.
        guard !connection.eventLoop.inEventLoop else { return connection.close().whenComplete { _ in } }
        try? connection.close().wait()
    }

    deinit { close() }

    /// A cell as the store reads it: integers, floating point, booleans, text (numeric and uuid
    /// as their text) and bytes.
    fileprivate static func value(of cell: PostgresCell) throws -> PostgreSQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .boolean(try cell.decode(Bool.self))
        case .bytea: return .bytes(Data(buffer: try cell.decode(ByteBuffer.self)))
        case .numeric: return .text(try cell.decode(Decimal.self).description)
        case .uuid: return .text(try cell.decode(UUID.self).uuidString)
        default: return .text(try cell.decode(String.self))
        }
    }

    /// postgres-nio's error as the store's: the server's SQLSTATE, or a lost connection naming
    /// where the server was supposed to be.
    static func translate(_ error: any Error, endpoint: PostgreSQLEndpoint) -> any Error {
        if let error = error as? PSQLError, error.code == .server, let info = error.serverInfo {
            let state = info[.sqlState] ?? "XX000"
            // 08: connection exceptions; 57P01…57P03: the server shut down or is starting.
            if state.hasPrefix("08") || state.hasPrefix("57P") {
                return PostgreSQLConnectionLost(reason: "The PostgreSQL server at \(endpoint) closed the connection: \(info[.message] ?? state).", sqlState: state)
            }
            return PostgreSQLServerError(sqlState: state, message: info[.message] ?? "", detail: info[.detail], constraint: info[.constraintName])
        }
        return lost(error, endpoint: endpoint, connecting: false)
    }

    private static func lost(_ error: any Error, endpoint: PostgreSQLEndpoint, connecting: Bool) -> PostgreSQLConnectionLost {
        if let error = error as? PSQLError {
            if error.code == .server, let info = error.serverInfo {
                let state = info[.sqlState] ?? ""
                let message = info[.message] ?? state
                return PostgreSQLConnectionLost(
                    reason: "The PostgreSQL server at \(endpoint) refused user '\(endpoint.user)' on database '\(endpoint.database)': \(message).",
                    sqlState: state)
            }
            if error.code == .authMechanismRequiresPassword {
                return PostgreSQLConnectionLost(reason: "The PostgreSQL server at \(endpoint) asks user '\(endpoint.user)' for a password, and none was given.", sqlState: "28P01")
            }
            if error.code == .sslUnsupported {
                return PostgreSQLConnectionLost(reason: "The PostgreSQL server at \(endpoint) does not offer TLS, which sslmode=\(endpoint.tls.rawValue) requires.")
            }
            let cause = error.underlying.map { String(describing: $0) } ?? "\(error.code)"
            let verb = connecting ? "can't be reached" : "closed the connection"
            return PostgreSQLConnectionLost(reason: "The PostgreSQL server at \(endpoint) \(verb): \(cause).")
        }
        let verb = connecting ? "can't be reached" : "closed the connection"
        return PostgreSQLConnectionLost(reason: "The PostgreSQL server at \(endpoint) \(verb): \(error).")
    }
}
#endif
