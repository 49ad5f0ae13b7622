import BenchmarkSupport
import Foundation
import Logging
import NIOPosix
import PostgresNIO

/// postgres-nio as a careful server programmer uses it: one connection, prepared statements, one
/// transaction for the insert, rows decoded into a plain struct.
final class RawWay: PostgreSQLWay {
    static let name = "raw postgres-nio"
    static let logger = Logger(label: "bench.raw", factory: { _ in SwiftLogNoOpLogHandler() })

    let connection: PostgresConnection
    private let data: DataSet

    private init(connection: PostgresConnection, data: DataSet) {
        self.connection = connection
        self.data = data
    }

    static func connect(_ server: ServerAddress, schema: String?) async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: server.socketPath, username: "ocd", password: nil, database: "postgres")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        if let schema { try await connection.query("SET search_path TO \(unescaped: schema)", logger: logger) }
        return connection
    }

    static func open(server: ServerAddress, schema: String, data: DataSet) async throws -> RawWay {
        RawWay(connection: try await connect(server, schema: schema), data: data)
    }

    func close() async throws { try await connection.close() }

    /// What the fetches decode a row into.
    struct Item {
        let primaryKey: Int64
        let version: Int64
        let name: String?
        let createdAt: Date?
        let done: Bool
    }

    func run(_ benchCase: PostgreSQLCase) async throws -> Int {
        switch benchCase {
        case .insert:
            let data = self.data
            return try await connection.withTransaction(logger: Self.logger) { connection in
                // Keys as the store allocates them: one bump of Z_PRIMARYKEY for the whole save.
                let rows = try await connection.query(
                    "UPDATE z_primarykey SET z_max = z_max + \(Int64(data.count)) WHERE z_ent = 1 RETURNING z_max", logger: Self.logger)
                var last: Int64 = 0
                for try await row in rows { last = try row.decode(Int64.self) }
                let first = last - Int64(data.count) + 1
                for i in 0..<data.count {
                    let insert = InsertItem(
                        primaryKey: first + Int64(i), name: data.names[i], createdAt: data.dates[i].timeIntervalSinceReferenceDate,
                        done: data.done[i] ? 1 : 0)
                    _ = try await connection.execute(insert, logger: Self.logger)
                }
                return data.count
            }
        case .fetchAll: return try await fetch(SelectItems())
        case .fetchSorted: return try await fetch(SelectItemsByDate())
        case .predicateDate: return try await fetch(SelectOpenItemsAfter(date: DataSet.predicateDate.timeIntervalSinceReferenceDate))
        case .count:
            let rows = try await connection.execute(CountOpenItemsAfter(date: DataSet.predicateDate.timeIntervalSinceReferenceDate), logger: Self.logger)
            var count = 0
            for try await value in rows { count = Int(value) }
            return count
        case .batchUpdate:
            return try await changedRows("UPDATE ztspitem SET zdone = 1, z_opt = z_opt + 1")
        case .batchDelete:
            return try await changedRows("DELETE FROM ztspitem WHERE zdone = 1")
        }
    }

    private func fetch<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> Int where Statement.Row == Item {
        var items: [Item] = []
        for try await item in try await connection.execute(statement, logger: Self.logger) { items.append(item) }
        let count = items.count
        items = []  // released inside the timed part, as the other ways release their objects
        return count
    }

    private func changedRows(_ sql: String) async throws -> Int {
        let result = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).get()
        return result.metadata.rows ?? 0
    }
}

/// The statements, prepared once per connection by postgres-nio.
struct InsertItem: PostgresPreparedStatement {
    static let sql = "INSERT INTO ztspitem (z_pk, z_ent, z_opt, zname, zcreatedat, zdone) VALUES ($1, 1, 1, $2, $3, $4)"
    typealias Row = ()
    let primaryKey: Int64
    let name: String
    let createdAt: Double
    let done: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(primaryKey)
        bindings.append(name)
        bindings.append(createdAt)
        bindings.append(done)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// A fetch of whole items: the columns the store reads, decoded in order.
protocol ItemSelect: PostgresPreparedStatement where Row == RawWay.Item {}

extension ItemSelect {
    func decodeRow(_ row: PostgresRow) throws -> RawWay.Item {
        let (primaryKey, version, name, createdAt, done) = try row.decode((Int64, Int64, String?, Double?, Int64?).self)
        return RawWay.Item(
            primaryKey: primaryKey, version: version, name: name, createdAt: createdAt.map(Date.init(timeIntervalSinceReferenceDate:)),
            done: done == 1)
    }

    func makeBindings() throws -> PostgresBindings { PostgresBindings() }
}

struct SelectItems: ItemSelect {
    static let sql = "SELECT z_pk, z_opt, zname, zcreatedat, zdone FROM ztspitem"
}

struct SelectItemsByDate: ItemSelect {
    static let sql = "SELECT z_pk, z_opt, zname, zcreatedat, zdone FROM ztspitem ORDER BY zcreatedat"
}

struct SelectOpenItemsAfter: ItemSelect {
    static let sql = "SELECT z_pk, z_opt, zname, zcreatedat, zdone FROM ztspitem WHERE zdone = 0 AND zcreatedat > $1"
    let date: Double

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(date)
        return bindings
    }
}

struct CountOpenItemsAfter: PostgresPreparedStatement {
    static let sql = "SELECT COUNT(*) FROM ztspitem WHERE zdone = 0 AND zcreatedat > $1"
    typealias Row = Int64
    let date: Double

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(date)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}
