import Testing
@testable import OpenCoreData

/// Hostile key paths are refused with an error naming them; hostile values are plain values that
/// select what in-memory evaluation selects. Either way the SQL never contains them and the
/// store's rows do not change.
@Suite struct InjectionTests {
    static let values = [
        "x' OR '1'='1", "'; DELETE FROM ZBOOK; --", "\"); DROP TABLE Z_PRIMARYKEY; --", "Robert'); DROP TABLE ZAUTHOR;--",
        "1; UPDATE ZBOOK SET ZTITLE = 'pwned'", "' UNION SELECT Z_PK FROM ZAUTHOR --", "%", "_", "*", "?", "[",
        "\\", "' || '", "NULL", "/* */", "`ZBOOK`", "ZTITLE", "Z_PK) OR (1=1", "a\u{0}b", "é'; --",
    ]

    static let keyPaths = [
        "title'; DROP TABLE ZBOOK; --", "title\" OR 1=1 --", "ZTITLE", "Z_PK", "title; DELETE FROM ZBOOK", "author.name' OR '1'='1",
        "author.\"name\"", "title)--", "(SELECT 1)", "title OR 1", "tags.label' --", "1=1", "title.", "", "books.@count; --",
    ]

    /// Predicates taking one hostile key path, for entity Book.
    static let keyPathFormats = ["%K == 'x'", "%K BEGINSWITH[cd] 'x'", "ANY %K == 1", "%K.@count > 0", "SUBQUERY(tags, $t, %K == 1).@count > 0"]

    /// Predicates taking one hostile value, with the entity they filter.
    static let valueFormats = [
        ("Book", "title == %@"), ("Book", "title ==[cd] %@"), ("Book", "title CONTAINS %@"), ("Book", "title BEGINSWITH[c] %@"),
        ("Book", "title ENDSWITH %@"), ("Book", "title LIKE %@"), ("Book", "title MATCHES %@"), ("Book", "title IN %@"),
        ("Book", "title > %@"), ("Book", "ANY tags.label ==[c] %@"), ("Author", "SUBQUERY(books, $b, $b.title ENDSWITH %@).@count > 0"),
        ("Tag", "ANY books.author.name LIKE[cd] %@"),
    ]

    @Test func hostileKeyPathsAreRefusedWithAnError() throws {
        let library = try LibraryFixture()
        let before = try StoreSnapshot.rows(of: library.stack.url)
        let recorder = StatementRecorder(library.stack.store)
        library.context.performAndWait {
            for key in Self.keyPaths {
                for format in Self.keyPathFormats {
                    let predicate = NSPredicate(format: format, argumentArray: [key])
                    do {
                        _ = try library.fetch("Book", predicate)
                        Issue.record("\(format) with \(key) ran")
                    } catch {
                        let error = error as NSError
                        #expect(error.domain == NSCocoaErrorDomain)
                        #expect([NSCoreDataError, NSPersistentStoreUnsupportedRequestTypeError].contains(error.code), "\(format) \(key): \(error)")
                    }
                }
                do {
                    _ = try library.fetch("Book", nil, sortedBy: [key])
                    Issue.record("sorting by \(key) ran")
                } catch {
                    #expect((error as NSError).code == NSCoreDataError, "sort by \(key): \(error)")
                }
            }
        }
        #expect(recorder.selects.allSatisfy { !$0.contains("DROP") && !$0.contains("DELETE") && !$0.contains("--") })
        #expect(try StoreSnapshot.rows(of: library.stack.url) == before)
    }

    @Test func unknownKeysAreNamedInTheError() throws {
        let library = try LibraryFixture()
        library.context.performAndWait {
            do {
                _ = try library.fetch("Book", NSPredicate(format: "%K == 1", "author.name' OR '1'='1"))
                Issue.record("ran")
            } catch {
                let error = error as NSError
                #expect(error.code == NSCoreDataError)
                #expect(error.userInfo["entity"] as? String == "Author")
                #expect(error.userInfo["key"] as? String == "name' OR '1'='1")
            }
        }
    }

    @Test func hostileValuesArePlainValues() throws {
        let library = try LibraryFixture()
        // Books whose titles are the hostile strings themselves, so that equality has a target.
        try library.context.performAndWait {
            for (index, value) in Self.values.enumerated() {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: library.context)
                book.setValue(value, forKey: "title")
                book.setValue("hostile-\(index)", forKey: "isbn")
                book.setValue(library["a2"], forKey: "author")
                book.mutableSetValue(forKey: "tags").add(library["t6"])
            }
            try library.context.save()
        }
        library.context.reset()
        let before = try StoreSnapshot.rows(of: library.stack.url)
        let recorder = StatementRecorder(library.stack.store)
        try library.context.performAndWait {
            for value in Self.values {
                for (entity, format) in Self.valueFormats {
                    let argument: Any = format.contains("IN %@") ? [value, "Nana"] : value
                    let predicate = NSPredicate(format: format, argumentArray: [argument])
                    let sql = Set(try library.fetch(entity, predicate).map(\.objectID))
                    let memory = Set(try library.fetch(entity, nil).filter { predicate.evaluate(with: $0) }.map(\.objectID))
                    #expect(sql == memory, "\(format) with \(value)")
                }
                let exact = try library.fetch("Book", NSPredicate(format: "title == %@", value))
                #expect(exact.count == 1 && exact.first?.value(forKey: "title") as? String == value, "\(value)")
            }
        }
        for statement in recorder.selects {
            for value in Self.values where value.contains("'") || value.contains(";") {
                #expect(!statement.contains(value), "a value was spliced into \(statement)")
            }
        }
        #expect(try StoreSnapshot.rows(of: library.stack.url) == before)
    }
}
