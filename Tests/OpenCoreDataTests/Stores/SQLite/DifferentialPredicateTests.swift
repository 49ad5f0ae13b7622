import Testing
@testable import OpenCoreData

/// One predicate of the differential test: the entity it filters, its format and the fixture keys
/// of its object arguments (a key in an array argument stands for a list of objects).
struct DifferentialCase: @unchecked Sendable, CustomTestStringConvertible {
    // @unchecked Sendable: immutable constants read by the tests.
    let entity: String
    let format: String
    let arguments: [Any]

    init(_ entity: String, _ format: String, _ arguments: Any...) {
        self.entity = entity
        self.format = format
        self.arguments = arguments
    }

    var testDescription: String { "\(entity): \(format)" }

    /// The arguments with fixture keys (`"@b1"`, `["@t1", "@t6"]`) replaced by their objects.
    func resolvedArguments(_ library: LibraryFixture) -> [Any] {
        func resolve(_ value: Any) -> Any {
            if let key = value as? String, key.hasPrefix("@") { return library[String(key.dropFirst())] }
            if let list = value as? [Any] { return list.map(resolve) }
            return value
        }
        return arguments.map(resolve)
    }

    static let all: [DifferentialCase] = [
        // Strings: case, diacritics, operators, ordering, nil.
        DifferentialCase("Book", "title == 'Nana'"),
        DifferentialCase("Book", "title ==[c] 'NANA'"),
        DifferentialCase("Book", "title ==[cd] 'unicode'"),
        DifferentialCase("Book", "title BEGINSWITH[d] 'Un'"),
        // Plain BEGINSWITH runs as a range of the column; under NOT, with a guard for nil.
        DifferentialCase("Book", "title BEGINSWITH 'N' OR title BEGINSWITH 'Ünï'"),
        DifferentialCase("Book", "title BEGINSWITH 'caf' AND title BEGINSWITH 'café'"),
        DifferentialCase("Book", "title BEGINSWITH 'Un' OR title BEGINSWITH '100%'"),
        DifferentialCase("Book", "NOT (title BEGINSWITH 'L')"),
        DifferentialCase("Book", "author.name BEGINSWITH 'Z' OR publisher.name BEGINSWITH 'G'"),
        DifferentialCase("Book", "title CONTAINS[c] 'the'"),
        // The empty string begins, ends and is contained in no string (NSString's answer).
        DifferentialCase("Book", "title BEGINSWITH '' OR title BEGINSWITH 'N'"),
        DifferentialCase("Book", "title ENDSWITH '' OR title ENDSWITH 'al'"),
        DifferentialCase("Book", "title CONTAINS '' OR pages < 100"),
        DifferentialCase("Book", "title CONTAINS[cd] '' OR title CONTAINS[cd] 'UNI'"),
        DifferentialCase("Book", "NOT (title BEGINSWITH '') AND pages > 400"),
        // A string's length, in UTF-16 units, as KVC reads it.
        DifferentialCase("Book", "title.length == 4"),
        DifferentialCase("Book", "title.length > 8 AND title.length < 20"),
        DifferentialCase("Book", "author.name.length == 3"),
        DifferentialCase("Book", "title ENDSWITH 'al'"),
        DifferentialCase("Book", "title LIKE[c] '*SOCIETY'"),
        DifferentialCase("Book", "title LIKE '?ana'"),
        DifferentialCase("Book", "title MATCHES '[A-Z].*'"),
        DifferentialCase("Book", "title MATCHES[cd] '.*UNICODE'"),
        DifferentialCase("Book", "title < 'M'"),
        DifferentialCase("Book", "title >= 'a'"),
        DifferentialCase("Book", "title BETWEEN {'A', 'O'}"),
        DifferentialCase("Book", "title IN {'Nana', 'orphan', 'nope'}"),
        DifferentialCase("Book", "title IN[c] {'NANA', 'ORPHAN'}"),
        DifferentialCase("Book", "title IN 'Nana and orphan'"),
        DifferentialCase("Book", "'The Hobbit, a novel' CONTAINS title"),
        DifferentialCase("Book", "isbn == nil"),
        DifferentialCase("Book", "isbn != nil"),
        DifferentialCase("Book", "isbn > '300'"),
        DifferentialCase("Book", "title CONTAINS ';' OR title CONTAINS '%'"),
        DifferentialCase("Book", "title == %@", "100% ; DROP TABLE ZBOOK; --"),
        // Numbers, nil, kinds that never match.
        DifferentialCase("Book", "pages > 300"),
        DifferentialCase("Book", "pages < 300"),
        DifferentialCase("Book", "pages == nil"),
        DifferentialCase("Book", "pages != 400"),
        DifferentialCase("Book", "pages BETWEEN {100, 600}"),
        DifferentialCase("Book", "pages IN {1, 42, 5000}"),
        DifferentialCase("Book", "pages IN %@", [1, NSNull(), 400]),
        DifferentialCase("Book", "NOT (pages > 300)"),
        // Comparisons emitted without NULL guards outside a NOT, guarded under one.
        DifferentialCase("Book", "pages == 120 OR pages BETWEEN {100, 300}"),
        DifferentialCase("Book", "NOT (pages == 120)"),
        DifferentialCase("Book", "NOT (pages BETWEEN {100, 300})"),
        DifferentialCase("Book", "NOT (author.name == 'ann') AND NOT (pages >= 200)"),
        DifferentialCase("Book", "NOT (NOT (pages < 250))"),
        DifferentialCase("Book", "pages > 300 OR isbn == nil"),
        DifferentialCase("Book", "pages > 100 AND title CONTAINS 'e'"),
        DifferentialCase("Book", "pages == '400'"),
        DifferentialCase("Book", "title == 400"),
        DifferentialCase("Book", "title > 5"),
        DifferentialCase("Book", "pages < nil"),
        // Arithmetic.
        DifferentialCase("Book", "pages * 2 > 1000"),
        DifferentialCase("Book", "pages + 1 == 121"),
        DifferentialCase("Book", "pages - pages == 0"),
        DifferentialCase("Book", "pages / 4 > 100"),
        DifferentialCase("Book", "-pages < -300"),
        DifferentialCase("Book", "1000 < pages * 3 - 200"),
        DifferentialCase("Book", "pages * %@ > 2000", 9_223_372_036_854_775_807),
        DifferentialCase("Book", "title + 1 == 1"),
        DifferentialCase("Author", "books.@sum.pages / 2 > books.@count * 100"),
        // To-one key paths, objects, SELF.
        DifferentialCase("Book", "author.name == 'ann'"),
        DifferentialCase("Book", "author.name ==[c] 'ANN'"),
        DifferentialCase("Book", "author.name BEGINSWITH[cd] 'emile'"),
        DifferentialCase("Book", "author == nil"),
        DifferentialCase("Book", "author != nil"),
        DifferentialCase("Book", "author == %@", "@a1"),
        DifferentialCase("Book", "author != %@", "@a1"),
        DifferentialCase("Book", "author IN %@", ["@a2", "@a5"]),
        DifferentialCase("Book", "publisher.name == nil"),
        DifferentialCase("Book", "publisher.name != 'Gallimard'"),
        DifferentialCase("Book", "author.name == publisher.name"),
        DifferentialCase("Book", "author.name < title"),
        DifferentialCase("Book", "SELF IN %@", ["@b1", "@b8"]),
        DifferentialCase("Book", "SELF == %@", "@b2"),
        // To-many and many-to-many.
        DifferentialCase("Book", "ANY tags.label == 'classic'"),
        DifferentialCase("Book", "ANY tags.label ==[c] 'classic'"),
        DifferentialCase("Book", "ALL tags.label BEGINSWITH 'c'"),
        DifferentialCase("Book", "NONE tags.label CONTAINS 'é'"),
        DifferentialCase("Book", "tags.@count >= 2"),
        DifferentialCase("Book", "tags.@count == 0"),
        DifferentialCase("Book", "%@ IN tags", "@t5"),
        DifferentialCase("Book", "tags CONTAINS %@", "@t4"),
        DifferentialCase("Book", "ANY tags IN %@", ["@t1", "@t6"]),
        DifferentialCase("Book", "ANY tags.books.pages > 4000"),
        DifferentialCase("Book", "SUBQUERY(tags, $t, $t.label != nil).@count == tags.@count"),
        DifferentialCase("Book", "author.books.@count > 1"),
        DifferentialCase("Book", "author.books.@max.pages > 500"),
        DifferentialCase("Book", "ANY publisher.books.title CONTAINS 'a'"),
        DifferentialCase("Book", "TRUEPREDICATE"),
        DifferentialCase("Book", "FALSEPREDICATE"),
        DifferentialCase("Author", "name == nil"),
        DifferentialCase("Author", "name ==[c] 'ann'"),
        DifferentialCase("Author", "name ==[cd] 'ZOE'"),
        DifferentialCase("Author", "name LIKE '*a*'"),
        DifferentialCase("Author", "name MATCHES '(?i)ann'"),
        DifferentialCase("Author", "ANY books.pages > 500"),
        DifferentialCase("Author", "ALL books.isbn != nil"),
        DifferentialCase("Author", "books.@count == 1"),
        DifferentialCase("Author", "books.@avg.pages > 300"),
        DifferentialCase("Author", "books.@min.pages < 100"),
        DifferentialCase("Author", "books.@sum.pages BETWEEN {100, 1000}"),
        DifferentialCase("Author", "books.@max.title BEGINSWITH 'T'"),
        DifferentialCase("Author", "ANY books.tags.label ==[cd] 'RESUME'"),
        DifferentialCase("Author", "SUBQUERY(books, $b, $b.tags.@count > 2).@count > 0"),
        DifferentialCase("Author", "NOT (ANY books.publisher.name BEGINSWITH 'G')"),
        DifferentialCase("Tag", "label == nil"),
        DifferentialCase("Tag", "label !=[c] 'CLASSIC'"),
        DifferentialCase("Tag", "ANY books.author == %@", "@a5"),
        DifferentialCase("Tag", "books.@count > 2"),
        DifferentialCase("Tag", "ANY books.publisher.name ==[cd] 'EDITIONS DU SEUIL'"),
        DifferentialCase("Tag", "ALL books.pages > 100"),
        DifferentialCase("Publisher", "name CONTAINS[d] 'editions'"),
        DifferentialCase("Publisher", "books.@count == 0"),
        DifferentialCase("Publisher", "ANY books.tags.label == nil"),
        DifferentialCase("Publisher", "books.@avg.pages > 300"),
        DifferentialCase("Publisher", "NONE books.author.name == 'ann'"),
    ]
}

/// The differential test: every predicate runs twice over the same library, once compiled to SQL
/// by the SQLite store and once evaluated in memory on every fetched object, and both must select
/// the same objects.
@Suite struct DifferentialPredicateTests {
    @Test(arguments: DifferentialCase.all)
    func sqlAndMemorySelectTheSameObjects(_ row: DifferentialCase) throws {
        let library = try LibraryFixture()
        try library.context.performAndWait {
            let predicate = try NSPredicate(validatingFormat: row.format, argumentArray: row.resolvedArguments(library))
            let keys = library.keysByID
            let sql = Set(try library.fetch(row.entity, predicate).map { keys[$0.objectID]! })
            let all = try library.fetch(row.entity, nil)
            let memory = Set(all.filter { predicate.evaluate(with: $0) }.map { keys[$0.objectID]! })
            #expect(sql == memory, "SQL selected \(sql.sorted()), memory \(memory.sorted())")
        }
    }

    @Test func theListIsLongAndSelective() throws {
        #expect(DifferentialCase.all.count >= 60)
        let library = try LibraryFixture()
        try library.context.performAndWait {
            var selective = 0
            for row in DifferentialCase.all {
                let predicate = NSPredicate(format: row.format, argumentArray: row.resolvedArguments(library))
                let all = try library.fetch(row.entity, nil)
                let count = try library.fetch(row.entity, predicate).count
                if count > 0 && count < all.count { selective += 1 }
            }
            // Most predicates keep some objects and drop others, so agreement means something.
            #expect(selective * 4 >= DifferentialCase.all.count * 3, "\(selective) of \(DifferentialCase.all.count)")
        }
    }
}
