import BenchmarkSupport
import Foundation
import PostgresNIO

/// The two schemas every run starts from a copy of: the store as OpenCoreData creates it (Apple's
/// layout: ZTSPITEM, Z_PRIMARYKEY, Z_METADATA), empty and filled with the data set. A copy is a
/// new schema with the same tables, indexes and rows, analyzed, so every run of every way starts
/// from the same database and none pays for another's dead rows.
struct Schemas {
    static let empty = "template_empty"
    static let filled = "template_filled"

    let server: ServerAddress
    private let admin: PostgresConnection

    private init(server: ServerAddress, admin: PostgresConnection) {
        self.server = server
        self.admin = admin
    }

    /// Makes both templates: OpenCoreData creates the store, one array insert fills it (not timed).
    static func make(server: ServerAddress, data: DataSet) async throws -> Schemas {
        let schemas = Schemas(server: server, admin: try await RawWay.connect(server, schema: nil))
        do {
            try await schemas.fill(data)
        } catch {
            try? await schemas.close()
            throw error
        }
        return schemas
    }

    private func fill(_ data: DataSet) async throws {
        let (empty, filled) = (Self.empty, Self.filled)
        for schema in [empty, filled] {
            let container = try OpenCoreDataWay.container(url: server.storeURL(schema: schema))
            let coordinator = container.persistentStoreCoordinator
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let keys = (1...data.count).map(Int64.init)
        let dates = data.dates.map(\.timeIntervalSinceReferenceDate)
        let done = data.done.map { Int64($0 ? 1 : 0) }
        try await admin.query(
            """
            INSERT INTO \(unescaped: filled).ztspitem (z_pk, z_ent, z_opt, zname, zcreatedat, zdone)
            SELECT k, 1, 1, n, d, b FROM unnest(\(keys)::int8[], \(data.names)::text[], \(dates)::float8[], \(done)::int8[]) AS t(k, n, d, b)
            """, logger: RawWay.logger)
        try await admin.query(
            "UPDATE \(unescaped: filled).z_primarykey SET z_max = \(Int64(data.count)) WHERE z_ent = 1", logger: RawWay.logger)
    }

    /// A new schema holding what `template` holds.
    ///
    /// - Returns: the new schema's name.
    func copy(_ template: String) async throws -> String {
        let schema = "run_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var tables: [String] = []
        let rows = try await admin.query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = \(template)", logger: RawWay.logger)
        for try await name in rows.decode(String.self) { tables.append(name) }
        try await admin.query("CREATE SCHEMA \(unescaped: schema)", logger: RawWay.logger)
        for table in tables {
            try await admin.query("CREATE TABLE \(unescaped: schema).\(unescaped: table) (LIKE \(unescaped: template).\(unescaped: table) INCLUDING ALL)", logger: RawWay.logger)
            try await admin.query("INSERT INTO \(unescaped: schema).\(unescaped: table) SELECT * FROM \(unescaped: template).\(unescaped: table)", logger: RawWay.logger)
            try await admin.query("ANALYZE \(unescaped: schema).\(unescaped: table)", logger: RawWay.logger)
        }
        return schema
    }

    /// The first column of the first row of `sql`, run in `schema`.
    func count(_ sql: String, in schema: String) async throws -> Int {
        try await admin.query("SET search_path TO \(unescaped: schema)", logger: RawWay.logger)
        var found = -1
        for try await value in try await admin.query(PostgresQuery(unsafeSQL: sql), logger: RawWay.logger).decode(Int64.self) { found = Int(value) }
        try await admin.query("RESET search_path", logger: RawWay.logger)
        return found
    }

    func drop(_ schema: String) async throws {
        try await admin.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: RawWay.logger)
    }

    /// The server's version, for the table's heading.
    func serverVersion() async throws -> String {
        var version = ""
        for try await text in try await admin.query("SHOW server_version", logger: RawWay.logger).decode(String.self) { version = text }
        return version
    }

    func close() async throws { try await admin.close() }
}
