import Foundation
import Testing

@testable import OpenCoreData

/// Predicates over to-many relationships on the PostgreSQL store: `ANY`/`ALL`/`NONE`, `IN` and
/// `CONTAINS`, collection operators and `SUBQUERY` run on the server as correlated subqueries
/// and select exactly what in-memory evaluation selects (the same cases as the SQLite store's
/// `ToManyPredicateTests`); the forms SQL cannot answer exactly (case and diacritic folding,
/// which the SQLite store answers through the evaluator's functions) are evaluated in memory,
/// with the same result.
@Suite struct PostgreSQLPredicateTests {
    /// Whether the PostgreSQL store runs `format` in SQL: all but case- and diacritic-insensitive forms.
    static func runsInSQL(_ format: String) -> Bool { !format.contains("[c") && !format.contains("[d]") }

    @Test(arguments: ToManyCase.all)
    func theServerSelectsWhatMemoryDoes(_ row: ToManyCase) throws {
        let library = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        let recorder = StatementRecorder(library.stack.store)
        try library.context.performAndWait {
            let predicate = try NSPredicate(validatingFormat: row.format, argumentArray: row.arguments.map { library[$0] })
            let keys = library.keysByID
            let fetched = Set(try library.fetch(row.entity, predicate).map { keys[$0.objectID]! })
            #expect(fetched == row.expected)
            let request = NSFetchRequest<NSManagedObject>(entityName: row.entity)
            request.predicate = predicate
            #expect(try library.context.count(for: request) == row.expected.count)
        }
        // In SQL, every read of the entity's table is filtered on the server; in memory, the
        // table is read whole.
        let table = try #require(library.stack.coordinator.managedObjectModel.entitiesByName[row.entity]?.tableName)
        let reads = recorder.selects.filter { $0.contains(" FROM \(table) t") }
        #expect(!reads.isEmpty)
        #expect(reads.allSatisfy { $0.contains(" WHERE ") } == Self.runsInSQL(row.format), "\(reads)")
    }

    /// A predicate SQL holds only in part: the terms of its AND that compile filter on the server,
    /// the others (here `MATCHES` and a diacritic-insensitive comparison) in memory.
    @Test func theCompiledTermsOfAnAndStillFilterOnTheServer() throws {
        let library = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        let recorder = StatementRecorder(library.stack.store)
        try library.context.performAndWait {
            let keys = library.keysByID
            for (format, expected) in [
                ("pages > 300 AND title MATCHES '[GT].*'", ["b1", "b6"]), ("title MATCHES '.*[aA].*' AND pages < 500 AND isbn != nil", ["b2", "b4"]),
                ("author.name ==[cd] 'zoe' AND pages > 1000", ["b7"]), ("title BEGINSWITH[c] 'the' AND pages > 0", ["b6"]),
            ] {
                recorder.reset()
                let predicate = NSPredicate(format: format)
                let fetched = try library.fetch("Book", predicate).map { keys[$0.objectID]! }
                let evaluated = try library.fetch("Book", nil).filter { predicate.evaluate(with: $0) }.map { keys[$0.objectID]! }
                #expect(Set(fetched) == Set(expected), "\(format)")
                #expect(Set(evaluated) == Set(expected), "\(format): memory")
                let reads = recorder.selects.filter { $0.contains(" FROM ZBOOK t") }
                #expect(reads.first?.contains(" WHERE ") == true, "\(format): \(reads)")
            }
        }
    }

    /// String operators as SQL over the library's titles, edge patterns included (empty, wildcards
    /// and SQL's own taken literally, under NOT): the server selects what memory selects.
    @Test func stringOperatorsSelectWhatMemoryDoes() throws {
        let library = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        try library.context.performAndWait {
            let keys = library.keysByID
            for format in [
                "title BEGINSWITH ''", "title CONTAINS ''", "title ENDSWITH ''", "title LIKE ''", "NOT (title CONTAINS '')",
                "title CONTAINS '%'", "title LIKE '*%*'", "title LIKE '?ana'", "title BEGINSWITH[c] 'the'", "NOT (title ENDSWITH 'l')",
                "title LIKE 'N*'", "title LIKE '*_*'",
            ] {
                let predicate = NSPredicate(format: format)
                let fetched = Set(try library.fetch("Book", predicate).map { keys[$0.objectID]! })
                let evaluated = Set(try library.fetch("Book", nil).filter { predicate.evaluate(with: $0) }.map { keys[$0.objectID]! })
                #expect(fetched == evaluated, "\(format)")
            }
        }
    }
}
