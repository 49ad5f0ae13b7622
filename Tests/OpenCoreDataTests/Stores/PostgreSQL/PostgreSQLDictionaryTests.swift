import Foundation
import Testing

@testable import OpenCoreData

/// Dictionary results on the PostgreSQL store, computed by the server, equal the SQLite store's
/// for the same library and the same requests: fetched key paths and to-ones, expressions,
/// groups with aggregates, distinct values, order, offset and limit.
@Suite struct PostgreSQLDictionaryTests {
    /// One request, described so that a failure names it.
    struct Case: @unchecked Sendable, CustomTestStringConvertible {
        // @unchecked Sendable: immutable constants read by the tests.
        let testDescription: String
        /// Whether only the set of results is defined (no sort descriptor).
        let unordered: Bool
        let configure: (NSFetchRequest<NSDictionary>) -> Void
    }

    static let cases: [Case] = [
        Case(testDescription: "title and pages by title", unordered: false) {
            $0.propertiesToFetch = ["title", "pages"]
            $0.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        },
        Case(testDescription: "author and publisher (object IDs) by pages, descending", unordered: false) {
            $0.propertiesToFetch = ["title", "author", "publisher"]
            $0.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false), NSSortDescriptor(key: "title", ascending: true)]
        },
        Case(testDescription: "titles by an unfetched key, offset and limit", unordered: false) {
            $0.propertiesToFetch = ["title"]
            $0.predicate = NSPredicate(format: "pages > 100")
            $0.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: true)]
            $0.fetchOffset = 1
            $0.fetchLimit = 2
        },
        Case(testDescription: "books per author name with sums", unordered: false) {
            $0.propertiesToFetch = [
                "author.name", DictionaryResultTests.expression("books", "count:", "title", .integer64AttributeType), DictionaryResultTests.expression("pages", "sum:", "pages", .integer64AttributeType),
                DictionaryResultTests.expression("longest", "max:", "pages", .undefinedAttributeType), DictionaryResultTests.expression("first", "min:", "title", .stringAttributeType),
            ]
            $0.propertiesToGroupBy = ["author.name"]
            $0.sortDescriptors = [NSSortDescriptor(key: "author.name", ascending: true)]
        },
        Case(testDescription: "authors of more than one book, by a HAVING clause", unordered: false) {
            $0.propertiesToFetch = ["author", DictionaryResultTests.expression("books", "count:", "title", .integer64AttributeType)]
            $0.propertiesToGroupBy = ["author"]
            $0.havingPredicate = NSPredicate(format: "books > 1 OR count(title) == 0")
            $0.sortDescriptors = [NSSortDescriptor(key: "author", ascending: false)]
        },
        Case(testDescription: "aggregates of every book", unordered: false) {
            $0.propertiesToFetch = [
                DictionaryResultTests.expression("total", "sum:", "pages", .integer64AttributeType), DictionaryResultTests.expression("mean", "average:", "pages", .doubleAttributeType),
                DictionaryResultTests.expression("count", "count:", "isbn", .integer64AttributeType), DictionaryResultTests.expression("last", "max:", "title", .undefinedAttributeType),
            ]
        },
        Case(testDescription: "groups by sum, descending", unordered: false) {
            $0.propertiesToFetch = ["publisher", DictionaryResultTests.expression("pages", "sum:", "pages", .integer64AttributeType)]
            $0.propertiesToGroupBy = ["publisher"]
            $0.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
        },
        Case(testDescription: "distinct publisher names", unordered: false) {
            $0.propertiesToFetch = ["publisher.name"]
            $0.returnsDistinctResults = true
            $0.sortDescriptors = [NSSortDescriptor(key: "publisher.name", ascending: true)]
        },
        Case(testDescription: "distinct authors, unsorted", unordered: true) {
            $0.propertiesToFetch = ["author"]
            $0.returnsDistinctResults = true
        },
        Case(testDescription: "the evaluated object and its tag count", unordered: false) {
            let object = NSExpressionDescription()
            object.name = "object"
            object.expression = NSExpression.expressionForEvaluatedObject()
            object.expressionResultType = .objectIDAttributeType
            $0.propertiesToFetch = ["title", object, DictionaryResultTests.expression("tags", "count:", "tags", .integer64AttributeType)]
            $0.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        },
    ]

    /// Each dictionary with object IDs as fixture keys, as text.
    static func results(_ library: LibraryFixture, _ configure: (NSFetchRequest<NSDictionary>) -> Void) throws -> [String] {
        let keys = library.keysByID
        return try library.context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            configure(request)
            return try library.context.fetch(request).map { dictionary in
                (dictionary as? [String: Any] ?? [:]).keys.sorted().map { key in
                    let value = dictionary[key]
                    let shown = (value as? NSManagedObjectID).map { keys[$0] ?? "?" } ?? "\(value.map { "\(type(of: $0)):\($0)" } ?? "nil")"
                    return "\(key)=\(shown)"
                }.joined(separator: " ")
            }
        }
    }

    @Test(arguments: cases)
    func theServerComputesWhatSQLiteDoes(_ row: Case) throws {
        let reference = try LibraryFixture()
        let library = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        let recorder = StatementRecorder(library.stack.store)
        let expected = try Self.results(reference, row.configure)
        let fetched = try Self.results(library, row.configure)
        if row.unordered {
            #expect(fetched.sorted() == expected.sorted())
        } else {
            #expect(fetched == expected)
        }
        #expect(!expected.isEmpty)
        // One statement, and not a read of every row.
        #expect(recorder.selects.count == 1, "\(recorder.selects)")
        #expect(recorder.selects.first?.hasPrefix("SELECT t.Z_PK, t.Z_ENT, t.Z_OPT") == false)
    }
}
