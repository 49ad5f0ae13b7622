#if FluentComparison
import BenchmarkSupport
import FluentPostgresDriver
import Foundation
import Logging
import NIOPosix

/// Fluent, the ORM Swift server code uses on PostgreSQL, as its documentation writes it: a model
/// class per table, the query builder, batch `create` for many rows (in chunks under the protocol's
/// 65,535 parameters), all inside one transaction. The model maps the store's own table, so the
/// three ways read and write the same rows.
final class FluentWay: PostgreSQLWay {
    static let name = "Fluent"
    private static let logger = Logger(label: "bench.fluent", factory: { _ in SwiftLogNoOpLogHandler() })

    private let databases: Databases
    private let database: any Database
    private let data: DataSet

    private init(databases: Databases, database: any Database, data: DataSet) {
        self.databases = databases
        self.database = database
        self.data = data
    }

    static func open(server: ServerAddress, schema: String, data: DataSet) async throws -> FluentWay {
        let databases = Databases(threadPool: NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
        var configuration = SQLPostgresConfiguration(
            unixDomainSocketPath: server.socketPath, username: "ocd", password: nil, database: "postgres")
        configuration.searchPath = [schema]
        databases.use(.postgres(configuration: configuration), as: .psql)
        guard let database = databases.database(.psql, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()) else {
            throw BenchError("Fluent gave no database")
        }
        return FluentWay(databases: databases, database: database, data: data)
    }

    func close() async throws { await databases.shutdownAsync() }

    /// Rows per batch `create`: six parameters a row, under the protocol's 65,535.
    private static let chunk = 10_000

    func run(_ benchCase: PostgreSQLCase) async throws -> Int {
        let data = self.data
        switch benchCase {
        case .insert:
            return try await database.transaction { database in
                let keys = try await (database as! any SQLDatabase)
                    .raw("UPDATE z_primarykey SET z_max = z_max + \(bind: Int64(data.count)) WHERE z_ent = 1 RETURNING z_max")
                    .first(decodingColumn: "z_max", as: Int64.self)
                guard let last = keys else { throw BenchError("no Z_PRIMARYKEY row") }
                let first = last - Int64(data.count) + 1
                for start in stride(from: 0, to: data.count, by: Self.chunk) {
                    let items = (start..<min(start + Self.chunk, data.count)).map { i in
                        FluentItem(id: first + Int64(i), name: data.names[i], createdAt: data.dates[i], done: data.done[i])
                    }
                    try await items.create(on: database)
                }
                return data.count
            }
        case .fetchAll:
            return try await FluentItem.query(on: database).all().count
        case .fetchSorted:
            return try await FluentItem.query(on: database).sort(\.$createdAt).all().count
        case .predicateDate:
            return try await Self.openItemsAfter(on: database).all().count
        case .count:
            return try await Self.openItemsAfter(on: database).count()
        case .batchUpdate:
            // Fluent's update sets values only: Z_OPT is 1 on every row of the data set, so the
            // row version becomes 2 as the store's `Z_OPT + 1` makes it. No count comes back.
            try await FluentItem.query(on: database).set(\.$done, to: 1).set(\.$version, to: 2).update()
            return data.count
        case .batchDelete:
            try await FluentItem.query(on: database).filter(\.$done == 1).delete()
            return data.done.count { $0 }
        }
    }

    private static func openItemsAfter(on database: any Database) -> QueryBuilder<FluentItem> {
        FluentItem.query(on: database)
            .filter(\.$done == 0)
            .filter(\.$createdAt > DataSet.predicateDate.timeIntervalSinceReferenceDate)
    }
}

/// The store's ZTSPITEM table as a Fluent model. Dates are Core Data's seconds since 2001 in a
/// double column, booleans 0 or 1 in an integer one: the store's layout, not Fluent's.
final class FluentItem: Model, @unchecked Sendable {
    // @unchecked Sendable: Fluent's models are classes with property wrappers; each is used by one
    // task at a time here, as Fluent's documentation requires.
    static let schema = "ztspitem"

    @ID(custom: "z_pk", generatedBy: .user) var id: Int64?
    @Field(key: "z_ent") var entity: Int64
    @Field(key: "z_opt") var version: Int64
    @OptionalField(key: "zname") var name: String?
    @OptionalField(key: "zcreatedat") var createdAt: Double?
    @Field(key: "zdone") var done: Int64

    init() {}

    init(id: Int64, name: String, createdAt: Date, done: Bool) {
        self.id = id
        self.entity = 1
        self.version = 1
        self.name = name
        self.createdAt = createdAt.timeIntervalSinceReferenceDate
        self.done = done ? 1 : 0
    }
}
#endif
