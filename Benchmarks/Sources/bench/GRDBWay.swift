import BenchmarkSupport
import Foundation
import GRDB

/// GRDB 7.10.0 records over a `DatabasePool` (WAL, as OpenCoreData's store): the way a Swift
/// developer who skips Core Data would write it.
final class GRDBWay: BenchmarkWay {
    static let name = "GRDB"

    /// A row of ZTSPITEM as a GRDB record. Dates are Core Data's: seconds since 2001 as REAL.
    struct Item: FetchableRecord, PersistableRecord {
        static let databaseTableName = "ZTSPITEM"

        enum Columns {
            static let primaryKey = Column("Z_PK")
            static let entity = Column("Z_ENT")
            static let version = Column("Z_OPT")
            static let name = Column("ZNAME")
            static let createdAt = Column("ZCREATEDAT")
            static let done = Column("ZDONE")
        }

        var primaryKey: Int64
        var entity: Int64 = 1
        var version: Int64 = 1
        var name: String
        var createdAt: Date
        var done: Bool

        init(primaryKey: Int64, name: String, createdAt: Date, done: Bool) {
            self.primaryKey = primaryKey
            self.name = name
            self.createdAt = createdAt
            self.done = done
        }

        init(row: Row) throws {
            primaryKey = row[Columns.primaryKey]
            entity = row[Columns.entity]
            version = row[Columns.version]
            name = row[Columns.name]
            createdAt = Date(timeIntervalSinceReferenceDate: row[Columns.createdAt])
            done = row[Columns.done]
        }

        func encode(to container: inout PersistenceContainer) throws {
            container[Columns.primaryKey] = primaryKey
            container[Columns.entity] = entity
            container[Columns.version] = version
            container[Columns.name] = name
            container[Columns.createdAt] = createdAt.timeIntervalSinceReferenceDate
            container[Columns.done] = done
        }

        static let datePredicate =
            Columns.done == false && Columns.createdAt > DataSet.predicateDate.timeIntervalSinceReferenceDate
    }

    private let pool: DatabasePool
    private let data: DataSet
    private var items: [Item] = []
    private var keys: [Int64] = []

    init(databaseURL: URL, fixture: Fixture) throws {
        pool = try DatabasePool(path: databaseURL.path)
        data = fixture.data
    }

    func release() throws {
        items = []
        keys = []
    }

    func close() throws {
        try pool.close()
    }

    func run(_ benchCase: BenchCase) throws -> Int {
        switch benchCase {
        case .insert, .typedInsert:
            let data = self.data
            try pool.write { db in
                for i in 0..<data.count {
                    try Item(primaryKey: Int64(i + 1), name: data.names[i], createdAt: data.dates[i], done: data.done[i]).insert(db)
                }
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 1", arguments: [data.count])
            }
            return data.count
        case .fetchAll, .fetchAsync, .fetchFaults:
            items = try pool.read { db in try Item.fetchAll(db) }
            return items.count
        case .fetchTen:
            items = try pool.read { db in try Item.limit(10).fetchAll(db) }
            return items.count
        case .typedRead:
            items = try pool.read { db in try Item.fetchAll(db) }
            var touched = 0
            for item in items { touched &+= item.name.utf8.count &+ Int(item.createdAt.timeIntervalSinceReferenceDate) &+ (item.done ? 1 : 0) }
            precondition(touched != 0)
            return items.count
        case .fetchSorted:
            items = try pool.read { db in try Item.order(Item.Columns.createdAt).fetchAll(db) }
            return items.count
        case .fetchIDs:
            keys = try pool.read { db in try Item.select(Item.Columns.primaryKey, as: Int64.self).fetchAll(db) }
            return keys.count
        case .iterateBatched:
            return try pool.read { db in
                let cursor = try Item.fetchCursor(db)
                var count = 0
                var bytes = 0
                while let item = try cursor.next() {
                    bytes &+= item.name.utf8.count
                    count += 1
                }
                precondition(bytes > 0)
                return count
            }
        case .predicateDate:
            items = try pool.read { db in try Item.filter(Item.datePredicate).fetchAll(db) }
            return items.count
        case .predicateName, .predicateLike, .predicateLikeCaseless, .predicateContains, .predicateMatches:
            items = try pool.read { db in try Item.filter(sql: benchCase.rawNameCondition!).fetchAll(db) }
            return items.count
        case .countPredicate:
            return try pool.read { db in try Item.filter(Item.datePredicate).fetchCount(db) }
        case .countAll, .countAfterWrites:
            return try pool.read { db in try Item.fetchCount(db) }
        case .update10k:
            return try pool.write { db in
                let items = try Item.limit(BenchCase.changeCount).fetchAll(db)
                for var item in items {
                    item.done.toggle()
                    item.version += 1
                    try item.update(db)
                }
                return items.count
            }
        case .delete10k:
            return try pool.write { db in
                let items = try Item.limit(BenchCase.changeCount).fetchAll(db)
                for item in items { try item.delete(db) }
                return items.count
            }
        case .batchUpdate:
            return try pool.write { db in
                try Item.updateAll(db, Item.Columns.done.set(to: true), Item.Columns.version += 1)
            }
        case .batchUpdateIDs:
            keys = try pool.write { db in
                let statement = try Item.all().updateAndFetchStatement(
                    db, [Item.Columns.done.set(to: true), Item.Columns.version += 1], selection: [Item.Columns.primaryKey])
                return try Int64.fetchAll(statement)
            }
            return keys.count
        case .batchInsert:
            return try run(.insert)
        case .batchDelete:
            return try pool.write { db in try Item.filter(Item.Columns.done == true).deleteAll(db) }
        }
    }
}
