import OpenCoreData

/// Where a PostgreSQL store lives: server, login, database and schema, read from the store's URL
/// (`postgres://user:password@host:5432/db?schema=app&sslmode=require`) with libpq's `PG*`
/// environment variables filling what the URL leaves out, as `psql` does.
package struct PostgreSQLEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// How the connection uses TLS, as libpq's `sslmode` spells it (`disable`, `prefer`,
    /// `require`; `verify-ca` and `verify-full` verify the certificate, as `require` does here).
    package enum TLSMode: String, Sendable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    package var host: String
    package var port: Int
    /// The folder holding the server's unix socket, when the host is a path (libpq's convention).
    package var socketDirectory: String?
    package var user: String
    package var password: String?
    package var database: String
    /// The PostgreSQL schema holding the store's tables: one schema, one store.
    package var schema: String
    package var tls: TLSMode
    /// Seconds to wait for the server to answer a connection attempt.
    package var connectTimeout: Double
    /// Milliseconds a statement may run before the server cancels it; 0 for no limit.
    package var statementTimeout: Int

    package var description: String {
        socketDirectory.map { "the socket in \($0)" } ?? "\(host):\(port)"
    }

    /// The endpoint `url` names.
    ///
    /// - Parameters:
    ///   - url: A `postgres://` or `postgresql://` URL.
    ///   - environment: libpq's variables (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
    ///     `PGDATABASE`, `PGSSLMODE`, `PGCONNECT_TIMEOUT`, `PGOPTIONS` is not read).
    /// - Throws: `NSPersistentStoreInvalidTypeError` for another scheme, a bad port or an
    ///   unknown `sslmode`.
    package init(url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql",
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else {
            throw Self.invalid(url, "a PostgreSQL store's URL starts with postgres:// or postgresql://")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let hostText = query["host"] ?? components.host.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGHOST"] ?? "localhost"
        if hostText.hasPrefix("/") {
            socketDirectory = hostText
            host = "localhost"
        } else {
            host = hostText
        }
        let portText = query["port"] ?? components.port.map(String.init) ?? environment["PGPORT"] ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else { throw Self.invalid(url, "the port '\(portText)' is not a number from 1 to 65535") }
        self.port = port
        user = components.user.flatMap { $0.removingPercentEncoding } ?? query["user"] ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding } ?? query["password"] ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = (path.isEmpty ? nil : path.removingPercentEncoding) ?? query["dbname"] ?? environment["PGDATABASE"] ?? user
        schema = query["schema"] ?? "public"
        let mode = query["sslmode"] ?? environment["PGSSLMODE"] ?? "prefer"
        guard let tls = TLSMode(rawValue: mode) else { throw Self.invalid(url, "sslmode '\(mode)' is not one of disable, allow, prefer, require, verify-ca, verify-full") }
        self.tls = socketDirectory == nil ? tls : .disable
        connectTimeout = (query["connect_timeout"] ?? environment["PGCONNECT_TIMEOUT"]).flatMap(Double.init).map { max(1, $0) } ?? 10
        statementTimeout = query["statement_timeout"].flatMap(Int.init) ?? 0
        guard Self.isPlainName(schema) else { throw Self.invalid(url, "the schema '\(schema)' is not a plain name (letters, digits, _)") }
    }

    /// Whether `name` can be written as an SQL identifier without quoting: the store names its
    /// schema in statements, so a URL cannot smuggle SQL through it.
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 63 else { return false }
        return (first == "_" || first.properties.isAlphabetic && first.isASCII)
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    private static func invalid(_ url: URL, _ reason: String) -> NSError {
        let shown = redacted(url)
        return CoreDataError.make(
            NSPersistentStoreInvalidTypeError, "The URL \(shown) does not name a PostgreSQL store: \(reason).",
            userInfo: [NSURLErrorKey: URL(string: shown) ?? url])
    }

    /// `url` with its password, in the user part or the `password` query item, replaced by `***`:
    /// what errors and logs show, since they end up in files and bug reports.
    package static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(a URL)" }
        if components.password != nil { components.password = "***" }
        components.queryItems = components.queryItems?.map { $0.name == "password" ? URLQueryItem(name: $0.name, value: "***") : $0 }
        return components.string ?? "(a URL)"
    }
}
