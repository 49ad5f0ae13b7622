import BenchmarkSupport
import Foundation
import GRDB

/// GRDB's fastest reading style: a `Row` cursor read by column index into a plain struct, no
/// record protocol. It only reads (`BenchCase.readsRows`); writes are the records' way.
final class GRDBRowsWay: BenchmarkWay {
    static let name = "GRDB rows"

    static func supports(_ benchCase: BenchCase) -> Bool { benchCase.readsRows }

    /// The raw way's plain struct: the same values, read another way.
    typealias Item = RawSQLiteWay.Item

    private let pool: DatabasePool
    private var items: [Item] = []

    init(databaseURL: URL, fixture: Fixture) throws {
        pool = try DatabasePool(path: databaseURL.path)
    }

    func release() throws {
        items = []
    }

    func close() throws {
        try pool.close()
    }

    func run(_ benchCase: BenchCase) throws -> Int {
        let columns = "SELECT Z_PK, ZNAME, ZCREATEDAT, ZDONE FROM ZTSPITEM"
        let sql: String
        var arguments = StatementArguments()
        switch benchCase {
        case .fetchAll, .typedRead: sql = columns
        case .fetchTen: sql = columns + " LIMIT 10"
        case .fetchSorted: sql = columns + " ORDER BY ZCREATEDAT"
        case .predicateDate:
            sql = columns + " WHERE ZDONE = 0 AND ZCREATEDAT > ?"
            arguments = [DataSet.predicateDate.timeIntervalSinceReferenceDate]
        default:
            guard let condition = benchCase.rawNameCondition else { throw BenchError("\(Self.name) does not do \(benchCase.rawValue)") }
            sql = columns + " WHERE " + condition
        }
        items = try pool.read { db in
            var items: [Item] = []
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                items.append(Item(primaryKey: row[0], name: row[1], createdAt: Date(timeIntervalSinceReferenceDate: row[2]), done: row[3]))
            }
            return items
        }
        if benchCase == .typedRead {
            var touched = 0
            for item in items { touched &+= item.name.utf8.count &+ Int(item.createdAt.timeIntervalSinceReferenceDate) &+ (item.done ? 1 : 0) }
            precondition(touched != 0)
        }
        return items.count
    }
}
