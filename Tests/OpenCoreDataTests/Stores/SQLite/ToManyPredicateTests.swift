import Testing
@testable import OpenCoreData

/// One predicate over the library, the entity it filters and the objects it must select.
struct ToManyCase: @unchecked Sendable, CustomTestStringConvertible {
    // @unchecked Sendable: immutable constants read by the tests.
    let entity: String
    let format: String
    /// Fixture keys of objects passed as arguments (`b4`, `t5`…).
    let arguments: [String]
    let expected: Set<String>

    init(_ entity: String, _ format: String, _ arguments: [String], _ expected: Set<String>) {
        self.entity = entity
        self.format = format
        self.arguments = arguments
        self.expected = expected
    }

    init(_ entity: String, _ format: String, _ expected: Set<String>) {
        self.init(entity, format, [], expected)
    }

    var testDescription: String { "\(entity): \(format)" }

    static let all: [ToManyCase] = [
        // One-to-many through the inverse foreign key.
        ToManyCase("Author", "ANY books.title BEGINSWITH 'G'", ["a1"]),
        ToManyCase("Author", "SOME books.pages > 500", ["a1", "a5"]),
        ToManyCase("Author", "ALL books.pages > 100", ["a2", "a3", "a5"]),
        ToManyCase("Author", "NONE books.pages > 500", ["a2", "a3", "a4"]),
        ToManyCase("Author", "NOT (ANY books.pages > 500) AND name != nil", ["a2", "a3"]),
        ToManyCase("Author", "books.@count == 0", ["a3"]),
        ToManyCase("Author", "books.@count >= 2", ["a1", "a5"]),
        ToManyCase("Author", "2 <= books.@count", ["a1", "a5"]),
        ToManyCase("Author", "books.@sum.pages > 1000", ["a5"]),
        ToManyCase("Author", "books.@avg.pages < 200", ["a2", "a3", "a4"]),
        ToManyCase("Author", "books.@max.pages == 5000", ["a5"]),
        ToManyCase("Author", "books.@min.title == 'Germinal'", ["a1"]),
        ToManyCase("Author", "count(books) == 1", ["a2", "a4"]),
        ToManyCase("Author", "books[SIZE] == 2", ["a5"]),
        ToManyCase("Author", "%@ IN books", ["b4"], ["a2"]),
        ToManyCase("Author", "books CONTAINS %@", ["b6"], ["a5"]),
        ToManyCase("Author", "ANY books == %@", ["b3"], ["a1"]),
        // Through to-one and many-to-many relationships after the to-many.
        ToManyCase("Author", "ANY books.tags.label ==[c] 'CLASSIC'", ["a1", "a2", "a5"]),
        ToManyCase("Author", "ANY books.publisher.name == nil", ["a1", "a4", "a5"]),
        ToManyCase("Author", "'classic' IN books.tags.label", ["a1", "a5"]),
        ToManyCase("Author", "books.tags.@count > 3", ["a5"]),
        ToManyCase("Author", "ALL books.tags.label != nil", ["a1", "a3", "a4"]),
        // SUBQUERY.
        ToManyCase("Author", "SUBQUERY(books, $b, $b.pages > 300 AND $b.publisher != nil).@count > 0", ["a1", "a5"]),
        ToManyCase("Author", "SUBQUERY(books, $b, ANY $b.tags.label == 'sci-fi').@count == 1", ["a2", "a4", "a5"]),
        ToManyCase("Author", "SUBQUERY(books, $b, pages > 300).@count == 0", ["a2", "a3", "a4"]),
        ToManyCase("Author", "SUBQUERY(books, $b, $b.pages > 1000 OR $b.pages < 100).@count > 0", ["a4", "a5"]),
        ToManyCase("Author", "ANY SUBQUERY(books, $b, $b.pages > 300).title BEGINSWITH 'The'", ["a5"]),
        ToManyCase("Book", "SUBQUERY(tags, $t, $t.label CONTAINS[c] 'c').@count >= 2", ["b4", "b6"]),
        ToManyCase("Book", "SUBQUERY(tags, $t, SUBQUERY($t.books, $b, $b.pages > 1000).@count > 0).@count > 0", ["b4", "b7"]),
        // Many-to-many through the join table.
        ToManyCase("Book", "ANY tags.label BEGINSWITH[cd] 'resu'", ["b1", "b6", "b8"]),
        ToManyCase("Book", "tags.@count == 0", ["b3"]),
        ToManyCase("Book", "ALL tags.label == 'classic'", ["b2", "b3"]),
        ToManyCase("Book", "NONE tags.label == nil", ["b1", "b2", "b3", "b5", "b6", "b8"]),
        ToManyCase("Book", "ANY tags.books.author.name == 'Zoë'", ["b1", "b2", "b4", "b5", "b6", "b7", "b8"]),
        ToManyCase("Tag", "ANY books.author.name ==[cd] 'zoe'", ["t1", "t2", "t3", "t4", "t5"]),
        ToManyCase("Tag", "books.@count == 0", ["t6"]),
        ToManyCase("Tag", "ANY books.publisher == %@", ["p1"], ["t1", "t2", "t3", "t4", "t5"]),
        ToManyCase("Publisher", "ANY books.tags == %@", ["t5"], ["p1", "p2"]),
        ToManyCase("Publisher", "books.@sum.pages == 0", ["p3", "p4"]),
        // A to-many reached through a to-one that may be nil.
        ToManyCase("Book", "ANY author.books.pages > 1000", ["b6", "b7"]),
        ToManyCase("Book", "ALL author.books.pages > 100", ["b4", "b6", "b7"]),
        ToManyCase("Book", "ALL author.books.pages == nil", ["b8"]),
        ToManyCase("Book", "author.books.@count == 3", ["b1", "b2", "b3"]),
        ToManyCase("Book", "publisher.books.@count == 0", ["b5", "b7", "b8"]),
        ToManyCase("Book", "%@ IN author.books", ["b1"], ["b1", "b2", "b3"]),
    ]
}

/// ANY / ALL / NONE, collection operators, IN and SUBQUERY over to-many relationships run in the
/// store as correlated subqueries and select exactly what in-memory evaluation selects.
@Suite struct ToManyPredicateTests {
    @Test(arguments: ToManyCase.all)
    func sqlSelectsTheExpectedObjectsAsMemoryDoes(_ row: ToManyCase) throws {
        let library = try LibraryFixture()
        try library.context.performAndWait {
            let predicate = try NSPredicate(validatingFormat: row.format, argumentArray: row.arguments.map { library[$0] })
            let keys = library.keysByID
            let fetched = Set(try library.fetch(row.entity, predicate).map { keys[$0.objectID]! })
            let everything = try library.fetch(row.entity, nil)
            let evaluated = Set(everything.filter { predicate.evaluate(with: $0) }.map { keys[$0.objectID]! })
            #expect(fetched == row.expected, "SQL")
            #expect(evaluated == row.expected, "memory")
            #expect(try library.context.count(for: request(row.entity, predicate)) == row.expected.count)
        }
    }

    @Test(arguments: ToManyCase.all)
    func inMemoryStoreSelectsTheSame(_ row: ToManyCase) throws {
        let library = try LibraryFixture(type: .inMemory)
        try library.context.performAndWait {
            let predicate = try NSPredicate(validatingFormat: row.format, argumentArray: row.arguments.map { library[$0] })
            let keys = library.keysByID
            #expect(Set(try library.fetch(row.entity, predicate).map { keys[$0.objectID]! }) == row.expected)
        }
    }

    private func request(_ entity: String, _ predicate: NSPredicate) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        return request
    }

    @Test func toManyKeyPathsWithoutAQuantifierAreRefused() throws {
        let library = try LibraryFixture()
        let refused = [
            ("Author", "books.title == 'Nana'"), ("Author", "books.pages > 3"), ("Author", "books.@sum.title == 0"),
            ("Author", "books.@sum.tags.label == 0"), ("Book", "author.@count == 1"), ("Author", "SUBQUERY(books.title, $t, $t == 'x').@count > 0"),
            // Memory-only constructs: no SQL form, so the store refuses rather than guesses.
            ("Author", "FUNCTION(name, 'uppercaseString') == 'ANN'"), ("Author", "TERNARY(name == nil, 1, 2) == 1"),
            ("Author", "books[FIRST].title == 'Nana'"), ("Author", "CAST(name, 'NSNumber') == 1"),
            ("Author", "books.@distinctUnionOfObjects.title CONTAINS 'Nana'"), ("Book", "100 / pages > 1"), ("Book", "median(tags.books.pages) > 1"),
        ]
        library.context.performAndWait {
            for (entity, format) in refused {
                do {
                    _ = try library.fetch(entity, NSPredicate(format: format))
                    Issue.record("\(format) ran")
                } catch {
                    #expect((error as NSError).code == NSPersistentStoreUnsupportedRequestTypeError, "\(format): \(error)")
                }
            }
        }
    }
}
