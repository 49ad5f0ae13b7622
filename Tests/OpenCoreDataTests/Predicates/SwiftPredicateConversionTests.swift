import Foundation
import Testing

@testable import OpenCoreData

/// `NSPredicate(_: Predicate<T>)`: each supported form of a Swift `#Predicate` over managed
/// objects selects the same objects as Swift evaluating it, as its format-string twin evaluated
/// on the objects, and as both fetched through the in-memory store and through the SQLite store,
/// where it compiles to SQL; a form without an equivalent gives nil and a reason.
@Suite struct SwiftPredicateConversionTests {
    static let day = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Books with every kind of value, nil included, on two shelves and none.
    func stack(in directory: TemporaryDirectory) throws -> [TestStack] {
        let model = SwiftPredicateModel.make()
        return try [
            fill(try TestStack(model: model, directory: directory)),
            fill(try TestStack(model: model, directory: directory, type: .inMemory, name: "Memory")),
        ]
    }

    func fill(_ stack: TestStack) throws -> TestStack {
        try stack.context.performAndWait {
            let top = PredicateShelf(context: stack.context)
            top.name = "Top"
            let bottom = PredicateShelf(context: stack.context)
            bottom.name = nil
            let rows: [(String?, Double, Int64, Date?, Bool, PredicateShelf?)] = [
                ("Anna Karenina", 12.5, 864, Self.day, true, top),
                ("Austerlitz", 25, 416, Self.day.addingTimeInterval(86_400), false, top),
                ("Beloved", 8, 324, nil, true, bottom),
                (nil, 3, 90, Self.day.addingTimeInterval(-86_400), false, nil),
                ("", 40, 1, nil, true, bottom),
                ("Middlemarch", 5, 880, Self.day, true, nil),
            ]
            for (title, price, pages, published, isAvailable, shelf) in rows {
                let book = PredicateBook(context: stack.context)
                book.title = title
                book.price = price
                book.pages = pages
                book.published = published
                book.isAvailable = isAvailable
                book.shelf = shelf
            }
            try stack.context.save()
        }
        return stack
    }

    /// The names of what `predicate` selects, four ways, which must agree.
    func check<T: NSManagedObject>(
        _ predicate: Predicate<T>, _ format: String, _ arguments: [Any] = [], name: @escaping (T) -> String?,
        in stacks: [TestStack], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let converted = try #require(NSPredicate(predicate), "\(String(describing: NSPredicate.conversionError(for: predicate)))", sourceLocation: sourceLocation)
        let twin = NSPredicate(format: format, argumentArray: arguments)
        for stack in stacks {
            try check(predicate, converted, twin, name: name, in: stack, sourceLocation: sourceLocation)
        }
    }

    func check<T: NSManagedObject>(
        _ predicate: Predicate<T>, _ converted: NSPredicate, _ twin: NSPredicate, name: @escaping (T) -> String?,
        in stack: TestStack, sourceLocation: SourceLocation
    ) throws {
        if let store = stack.store as? SQLiteStore {
            // The stack's own entity: `T.entity()` may answer from the model of a test running
            // beside this one, which need not have a store yet (nor a table layout).
            let model = try #require(stack.context.persistentStoreCoordinator?.managedObjectModel)
            let entity = try #require(model.entitiesByName[T.entity().name ?? ""])
            var compiler = SQLPredicateCompiler(entity: entity, alias: "t0", store: store, dialect: SQLiteDialect(), names: SQLAliases())
            #expect(throws: Never.self, "compiles to SQL: \(converted)", sourceLocation: sourceLocation) { _ = try compiler.compile(converted) }
        }
        try stack.context.performAndWait {
            let entityName = T.entity().name!
            let all = try stack.context.fetch(NSFetchRequest<T>(entityName: entityName))
            let names = { (objects: [T]) in objects.map { name($0) ?? "nil" }.sorted() }
            let bySwift = names(try all.filter { try predicate.evaluate($0) })
            #expect(names(all.filter { converted.evaluate(with: $0) }) == bySwift, "in memory: \(converted)", sourceLocation: sourceLocation)
            #expect(names(all.filter { twin.evaluate(with: $0) }) == bySwift, "format twin in memory: \(twin)", sourceLocation: sourceLocation)
            let request = NSFetchRequest<T>(entityName: entityName)
            request.predicate = converted
            #expect(names(try stack.context.fetch(request)) == bySwift, "SQL: \(converted)", sourceLocation: sourceLocation)
            request.predicate = twin
            #expect(names(try stack.context.fetch(request)) == bySwift, "format twin in SQL: \(twin)", sourceLocation: sourceLocation)
        }
    }

    @Test func comparisonsAndLogic() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        let title = { (book: PredicateBook) in book.title }
        try check(#Predicate<PredicateBook> { $0.price > 10 }, "price > 10", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.pages <= 416 && $0.isAvailable == true }, "pages <= 416 AND isAvailable == YES", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.isAvailable }, "isAvailable == YES", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { !($0.price < 8) || $0.pages == 90 }, "NOT price < 8 OR pages == 90", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.price * 2 >= 50 }, "price * 2 >= 50", name: title, in: stacks)
        let day = Self.day
        try check(#Predicate<PredicateBook> { $0.published != nil && $0.published! > day }, "published > %@", [day], name: title, in: stacks)
    }

    @Test func optionals() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        let title = { (book: PredicateBook) in book.title }
        try check(#Predicate<PredicateBook> { $0.title != nil }, "title != nil", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.title == nil || $0.pages < 100 }, "title == nil OR pages < 100", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { ($0.title ?? "") == "" }, "title == nil OR title == ''", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { ($0.title ?? "Z") > "B" }, "title == nil OR title > 'B'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.published == nil }, "published == nil", name: title, in: stacks)
    }

    @Test func strings() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        let title = { (book: PredicateBook) in book.title }
        try check(#Predicate<PredicateBook> { ($0.title ?? "").starts(with: "A") }, "title BEGINSWITH 'A'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.title.flatMap { $0.contains("ar") } ?? false }, "title CONTAINS 'ar'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.title.flatMap { $0.starts(with: "B") } ?? true }, "title == nil OR title BEGINSWITH 'B'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.title?.contains("e") == true }, "title CONTAINS 'e'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.title?.contains("e") == false }, "title != nil AND NOT title CONTAINS 'e'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.title?.contains("e") != true }, "title == nil OR NOT title CONTAINS 'e'", name: title, in: stacks)
    }

    /// The string comparisons of search code, which Linux's Foundation does not give the macro
    /// (OpenCoreData declares them): `localizedStandardContains` as `CONTAINS[cd]`, the results
    /// of `caseInsensitiveCompare` and `localizedCompare` compared with a constant.
    @Test func searchAndCaseInsensitiveComparisons() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        let title = { (book: PredicateBook) in book.title }
        try check(#Predicate<PredicateBook> { ($0.title ?? "").localizedStandardContains("KAR") }, "title CONTAINS[cd] 'kar'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.title?.localizedStandardContains("BÉL") == true }, "title CONTAINS[cd] 'bel'", name: title, in: stacks)
        let search = "march"
        // The macro takes `ComparisonResult.orderedSame` for a key path: predicates capture it.
        let (same, ascending, descending) = (ComparisonResult.orderedSame, ComparisonResult.orderedAscending, ComparisonResult.orderedDescending)
        try check(
            #Predicate<PredicateBook> { $0.title.flatMap { $0.localizedStandardContains(search) || $0.starts(with: "Au") } ?? false },
            "title CONTAINS[cd] 'march' OR title BEGINSWITH 'Au'", name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { ($0.title ?? "").caseInsensitiveCompare("beloved") == same }, "title ==[c] 'beloved'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { ($0.title ?? "").caseInsensitiveCompare("BELOVED") != same }, "title == nil OR title !=[c] 'beloved'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { ($0.title ?? "").caseInsensitiveCompare("b") == ascending }, "title == nil OR title <[c] 'b'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { descending == ($0.title ?? "").caseInsensitiveCompare("b") }, "title >[c] 'b'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { ($0.title ?? "").caseInsensitiveCompare("b") != ascending }, "title >=[c] 'b'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { ($0.title ?? "").caseInsensitiveCompare("beloved") != descending }, "title == nil OR title <=[c] 'beloved'",
            name: title, in: stacks)
        // Of an optional's value, as code writes it for an optional attribute: nil equals no result.
        try check(
            #Predicate<PredicateBook> { $0.title?.caseInsensitiveCompare("BELOVED") == same }, "title ==[c] 'beloved'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { $0.title?.caseInsensitiveCompare("b") != ascending }, "title == nil OR title >=[c] 'b'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { $0.title?.localizedCompare("Beloved") == same }, "title == 'Beloved'",
            name: title, in: stacks)
        try check(
            #Predicate<PredicateBook> { ($0.title ?? "").localizedCompare("Austerlitz") == same }, "title == 'Austerlitz'",
            name: title, in: stacks)
        // No store orders by a locale: the other results of `localizedCompare` have no equivalent.
        let ordered = #Predicate<PredicateBook> { ($0.title ?? "").localizedCompare("B") == ascending }
        #expect(NSPredicate(ordered) == nil)
        #expect("\(NSPredicate.conversionError(for: ordered).map { "\($0)" } ?? "")".contains("locale"))
    }

    @Test func collectionsAndRelationships() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        let title = { (book: PredicateBook) in book.title }
        let counts: [Int64] = [90, 864, 7]
        try check(#Predicate<PredicateBook> { counts.contains($0.pages) }, "pages IN %@", [counts], name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.shelf?.name == "Top" }, "shelf.name == 'Top'", name: title, in: stacks)
        try check(#Predicate<PredicateBook> { $0.shelf == nil }, "shelf == nil", name: title, in: stacks)
        let name = { (shelf: PredicateShelf) in shelf.name }
        try check(#Predicate<PredicateShelf> { $0.books.contains { $0.price > 20 } }, "ANY books.price > 20", name: name, in: stacks)
        try check(#Predicate<PredicateShelf> { $0.books.count > 1 }, "books.@count > 1", name: name, in: stacks)
        try check(
            #Predicate<PredicateShelf> { $0.books.allSatisfy { $0.isAvailable } }, "SUBQUERY(books, $b, $b.isAvailable == NO).@count == 0",
            name: name, in: stacks)
    }

    /// Names of key paths come from the model, which a program has loaded before it converts.
    @Test func formsWithoutAnEquivalentGiveNilAndSayWhy() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        defer { withExtendedLifetime(stacks) {} }
        let remainder = #Predicate<PredicateBook> { $0.pages % 2 == 0 }
        #expect(NSPredicate(remainder) == nil)
        let reason = NSPredicate.conversionError(for: remainder).map { "\($0)" } ?? ""
        #expect(reason.contains("has no NSPredicate equivalent"))
        let comparedConditions = #Predicate<PredicateBook> { ($0.price > 3) == ($0.pages > 3) }
        #expect(NSPredicate(comparedConditions) == nil)
        #expect(NSPredicate.conversionError(for: #Predicate<PredicateBook> { $0.price > 3 }) == nil)
    }

    /// A converted predicate is an ordinary one: it equals its format-string twin and prints as it.
    @Test func aConvertedPredicateEqualsItsTwin() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        defer { withExtendedLifetime(stacks) {} }
        let converted = try #require(NSPredicate(#Predicate<PredicateBook> { $0.pages > 3 && $0.isAvailable }))
        let twin = NSPredicate(format: "pages > 3 AND isAvailable == YES")
        #expect(converted == twin)
        #expect(converted != NSPredicate(format: "pages > 4 AND isAvailable == YES"))
        #expect("\(converted)" == "\(twin)")
    }

    /// A converted predicate prints in Apple's format, every key path by its name, and parses back
    /// to an equal predicate: what logs and `description` show (a form reported from an app;
    /// `predicateFormat` is swift-corelibs-foundation's, which can't be overridden: see
    /// docs/compatibility.md).
    @Test func aConvertedPredicatePrintsItsKeyPathsByName() throws {
        let directory = TemporaryDirectory()
        let stacks = try stack(in: directory)
        defer { withExtendedLifetime(stacks) {} }
        let converted = try #require(NSPredicate(#Predicate<PredicateBook> { $0.isAvailable == true && ($0.title ?? "").starts(with: "Mi") }))
        let format = converted.description
        #expect("\(converted)" == format)
        #expect(format.contains("isAvailable") && format.contains("title"), "\(format)")
        #expect(NSPredicate(format: format) == converted, "\(format)")
    }
}
