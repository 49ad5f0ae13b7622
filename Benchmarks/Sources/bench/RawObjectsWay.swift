import BenchmarkSupport
import Foundation
import GRDBSQLite

/// Raw SQLite's reads with each row made into an instance of a plain Swift class: the least an
/// API that hands out one object per row, as Core Data's does, can cost. Its ratio to raw
/// SQLite's structs is the floor under OpenCoreData's fetch ratios, and its `release()` the floor
/// under the teardown, on the machine the table ran on (docs/performance.md).
final class RawObjectsWay: BenchmarkWay {
    static let name = "raw SQLite, an object per row"

    /// A to-do item as one object: 49 bytes of header and fields, so the allocator gives it the
    /// 64-byte block an `NSManagedObject` takes.
    final class ItemObject {
        let primaryKey: Int64
        let name: String
        let createdAt: Date
        let done: Bool

        init(_ statement: OpaquePointer) {
            primaryKey = sqlite3_column_int64(statement, 0)
            name = RawDatabase.text(statement, 1)
            createdAt = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 2))
            done = sqlite3_column_int64(statement, 3) != 0
        }
    }

    private let db: RawDatabase
    private var objects: [ItemObject] = []

    init(databaseURL: URL, fixture: Fixture) throws {
        db = try RawDatabase(url: databaseURL)
    }

    /// The reads that keep an object per row: issue 43's fetch cases and the predicates it sets
    /// targets for, and fetch-sorted (issue 25's target). Not iterate-batched, whose raw way
    /// keeps nothing.
    static func supports(_ benchCase: BenchCase) -> Bool {
        [.fetchAll, .typedRead, .fetchSorted, .predicateDate, .predicateLikeCaseless, .predicateContains].contains(benchCase)
    }

    func prepare(_ benchCase: BenchCase) throws {}

    func release() throws {
        objects = []
    }

    func close() throws {
        db.close()
    }

    func run(_ benchCase: BenchCase) throws -> Int {
        let columns = RawSQLiteWay.columns
        switch benchCase {
        case .fetchAll:
            objects = try read(columns)
        case .typedRead:
            objects = try read(columns)
            var touched = 0
            for object in objects {
                touched &+= object.name.utf8.count &+ Int(object.createdAt.timeIntervalSinceReferenceDate) &+ (object.done ? 1 : 0)
            }
            precondition(touched != 0)
        case .fetchSorted:
            objects = try read(columns + " ORDER BY ZCREATEDAT")
        case .predicateDate:
            objects = try read(columns + RawSQLiteWay.dateFilter, date: DataSet.predicateDate)
        case .predicateLikeCaseless, .predicateContains:
            objects = try read(columns + " WHERE " + benchCase.rawNameCondition!)
        default:
            throw BenchError("\(Self.name) does not do \(benchCase.rawValue)")
        }
        return objects.count
    }

    private func read(_ sql: String, date: Date? = nil) throws -> [ItemObject] {
        try RawSQLiteWay.rows(of: sql, date: date, in: db, make: ItemObject.init)
    }
}
