import Foundation
import Testing

@testable import OpenCoreData

/// The two SQL stores stand on one relational layer: every predicate form selects the same
/// objects from the SQLite store and the PostgreSQL store, or fails with the same error, whether
/// the PostgreSQL store runs it in SQL or (for folding, which only SQLite's evaluator functions
/// do in SQL) in memory.
@Suite struct SQLStoresAgreeTests {
    /// What a fetch gave: the fixture keys of its objects, or its error's domain and code.
    enum Outcome: Equatable, CustomStringConvertible {
        case objects(Set<String>)
        case error(String, Int)

        var description: String {
            switch self {
            case .objects(let keys): "objects \(keys.sorted())"
            case .error(let domain, let code): "error \(domain) \(code)"
            }
        }
    }

    /// Forms a store refuses or answers at an edge: the same error, or the same objects, from both.
    static let edges: [DifferentialCase] = [
        DifferentialCase("Book", "tags.label == 'classic'"),
        DifferentialCase("Book", "ANY tags.label == tags.label"),
        DifferentialCase("Book", "pages > $limit"),
        DifferentialCase("Book", "uppercase(title) == 'NANA'"),
        DifferentialCase("Book", "nosuch == 1"),
        DifferentialCase("Book", "title.length == 4"),
        DifferentialCase("Book", "author < %@", "@a2"),
        DifferentialCase("Book", "author == 5"),
        DifferentialCase("Book", "title IN[c] 'NANA AND ORPHAN'"),
        DifferentialCase("Book", "title LIKE '*\\\\%*'"),
        DifferentialCase("Book", "title LIKE[c] '*\u{212A}*'"),
        DifferentialCase("Author", "name ==[c] '\u{212A}'"),
        DifferentialCase("Book", "title CONTAINS[c] 'ſ'"),
        DifferentialCase("Book", "pages / 0 > 1"),
        DifferentialCase("Book", "pages * 4611686018427387904 > 0"),
        DifferentialCase("Author", "books.@sum.title > 0"),
        DifferentialCase("Author", "books.@avg.pages == books.@sum.pages"),
    ]

    /// Every case of the SQLite store's differential and to-many tests, and the edges above.
    static var cases: [DifferentialCase] {
        DifferentialCase.all + edges
            + ToManyCase.all.map { row in
                DifferentialCase(row.entity, row.format, row.arguments.map { "@" + $0 })
            }
    }

    static func outcome(_ row: DifferentialCase, _ library: LibraryFixture) -> Outcome {
        library.context.performAndWait {
            do {
                let arguments = row.resolvedArguments(library)
                let predicate = try NSPredicate(validatingFormat: row.format, argumentArray: arguments)
                let keys = library.keysByID
                return .objects(Set(try library.fetch(row.entity, predicate).map { keys[$0.objectID]! }))
            } catch {
                let error = error as NSError
                return .error(error.domain, error.code)
            }
        }
    }

    @Test func everyPredicateFormGivesTheSameObjectsOrTheSameError() throws {
        let sqlite = try LibraryFixture()
        let postgreSQL = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        var refused = 0
        for row in Self.cases {
            let expected = Self.outcome(row, sqlite)
            if case .error = expected { refused += 1 }
            #expect(Self.outcome(row, postgreSQL) == expected, "\(row.testDescription)")
        }
        // The list holds refusals too, so that agreement covers errors.
        #expect(refused >= 6, "\(refused) refusals")
        #expect(Self.cases.count >= 170)
    }

    /// An object of another store has a key that may equal a row's: it matches nothing in either.
    @Test func anObjectOfAnotherStoreMatchesNoRowInEither() throws {
        let sqlite = try LibraryFixture()
        let postgreSQL = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        for (library, other) in [(sqlite, postgreSQL), (postgreSQL, sqlite)] {
            try library.context.performAndWait {
                let stranger = other["a1"]
                let keys = library.keysByID
                let same = try library.fetch("Book", NSPredicate(format: "author == %@", stranger)).map { keys[$0.objectID]! }
                #expect(same.isEmpty)
                let different = Set(try library.fetch("Book", NSPredicate(format: "author != %@", stranger)).map { keys[$0.objectID]! })
                #expect(different == Set(LibraryFixture.books.indices.map { "b\($0 + 1)" }))
            }
        }
    }

    /// An object never saved has no row: `!=` keeps every book, those without author too.
    @Test func anUnsavedObjectMatchesNoRowInEither() throws {
        let sqlite = try LibraryFixture()
        let postgreSQL = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        for library in [sqlite, postgreSQL] {
            try library.context.performAndWait {
                let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                child.persistentStoreCoordinator = library.stack.coordinator
                let unsaved = child.performAndWait { NSEntityDescription.insertNewObject(forEntityName: "Author", into: child) }
                let keys = library.keysByID
                let different = Set(try library.fetch("Book", NSPredicate(format: "author != %@", unsaved)).map { keys[$0.objectID]! })
                #expect(different.count == LibraryFixture.books.count)
                #expect(try library.fetch("Book", NSPredicate(format: "author == %@", unsaved)).isEmpty)
            }
        }
    }
}
