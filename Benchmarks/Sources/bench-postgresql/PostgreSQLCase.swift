import BenchmarkSupport
import Foundation

/// The cases of issue 24's table, in the order it prints them. Every fetch lets go of its results
/// inside the timed part (the objects released, the context reset), as a server's short-lived
/// request context does.
enum PostgreSQLCase: String, CaseIterable, Sendable {
    case insert
    case fetchAll = "fetch-all"
    case fetchSorted = "fetch-sorted"
    case predicateDate = "predicate-date"
    case count
    case batchUpdate = "batch-update"
    case batchDelete = "batch-delete"

    var title: String {
        switch self {
        case .insert: "insert N, save once"
        case .fetchAll: "fetch all, materialized, released"
        case .fetchSorted: "fetch all by createdAt, materialized, released"
        case .predicateDate: "fetch done == NO AND createdAt > %@, released"
        case .count: "count done == NO AND createdAt > %@"
        case .batchUpdate: "batch update done = YES on all, count"
        case .batchDelete: "batch delete done == YES, count"
        }
    }

    /// Whether the case starts from the empty store rather than the filled one.
    var startsEmpty: Bool { self == .insert }

    /// Whether the case changes the data, so that each run needs a fresh copy of it.
    var writes: Bool { self == .insert || self == .batchUpdate || self == .batchDelete }

    /// How many rows a correct run returns or changes: the ways must agree on it.
    func expectedCount(in data: DataSet) -> Int {
        switch self {
        case .insert, .fetchAll, .fetchSorted, .batchUpdate: data.count
        case .predicateDate, .count: zip(data.done, data.dates).count { !$0.0 && $0.1 > DataSet.predicateDate }
        case .batchDelete: data.done.count { $0 }
        }
    }

    /// A query on the table after a writing run, and the count it must give: the writes reached
    /// the database, with Core Data's bookkeeping (Z_OPT, Z_MAX) as the store keeps it.
    func verification(in data: DataSet) -> (sql: String, expected: Int)? {
        switch self {
        case .insert:
            ("SELECT COUNT(*) FROM ztspitem WHERE z_ent = 1 AND z_opt = 1 AND z_pk <= (SELECT z_max FROM z_primarykey WHERE z_ent = 1)", data.count)
        case .batchUpdate: ("SELECT COUNT(*) FROM ztspitem WHERE zdone = 1 AND z_opt = 2", data.count)
        case .batchDelete: ("SELECT COUNT(*) FROM ztspitem WHERE zdone = 0", data.count - data.done.count { $0 })
        default: nil
        }
    }
}

/// One way of doing every case on a PostgreSQL schema: raw postgres-nio, Fluent, OpenCoreData.
protocol PostgreSQLWay: AnyObject {
    static var name: String { get }

    /// Connects to the schema `schema` (not timed).
    static func open(server: ServerAddress, schema: String, data: DataSet) async throws -> Self

    /// Does the case, results released before it returns.
    ///
    /// - Returns: how many rows or objects the case returned or changed.
    func run(_ benchCase: PostgreSQLCase) async throws -> Int

    /// Disconnects (not timed).
    func close() async throws
}

/// Where the server listens: its unix socket's folder and port.
struct ServerAddress: Sendable {
    let socketDirectory: String
    let port: Int

    var socketPath: String { socketDirectory + "/.s.PGSQL.\(port)" }

    func storeURL(schema: String) -> URL {
        URL(string: "postgres://ocd@/postgres?host=\(socketDirectory)&port=\(port)&schema=\(schema)")!
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
