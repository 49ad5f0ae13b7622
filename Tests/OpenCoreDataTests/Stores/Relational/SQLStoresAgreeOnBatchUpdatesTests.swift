import Foundation
import Testing

@testable import OpenCoreData

/// Both SQL stores compute a batch update's values with the relational layer's one compiler:
/// the same sequence of updates leaves the same rows in each, and a value neither can write is
/// refused with the same error, writing nothing.
@Suite struct SQLStoresAgreeOnBatchUpdatesTests {
    /// A batch update of books: which to change (nil for all), and each attribute's new value.
    struct Update: CustomStringConvertible {
        let predicate: String?
        let values: [String: String]
        init(_ values: [String: String], where predicate: String? = nil) {
            self.values = values
            self.predicate = predicate
        }
        var description: String { "\(values) where \(predicate ?? "all")" }
    }

    static let updates: [Update] = [
        Update(["pages": "pages + 1"]),
        Update(["pages": "pages * 2"], where: "pages < 500"),
        // 401 / 4 is 100.25 and 311 * 2 / 4 is 155.5: cut toward zero, not rounded.
        Update(["pages": "pages / 4"]),
        Update(["pages": "pages - 1000"], where: "title BEGINSWITH 'G'"),
        Update(["pages": "TERNARY(pages > 100, 1, 0)"], where: "isbn != nil"),
        Update(["title": "isbn"], where: "pages == 0"),
        Update(["title": "'renamed'", "pages": "7"], where: "author.name == 'Zoë'"),
        Update(["pages": "pages * 4611686018427387904"], where: "pages == 7"),
        // Refused, and nothing written: a number for a string, text for a number, a related
        // object's attribute, a division by a key path.
        Update(["title": "pages"]),
        Update(["pages": "'many'"]),
        Update(["pages": "author.name"]),
        Update(["pages": "42 / pages"]),
    ]

    /// What a store holds after an update: every book's title and pages, or the update's error.
    enum State: Equatable {
        case rows([String: [String]])
        case error(String, Int)
    }

    static func apply(_ update: Update, to library: LibraryFixture) -> State {
        library.context.performAndWait {
            let request = NSBatchUpdateRequest(entityName: "Book")
            request.predicate = update.predicate.map { NSPredicate(format: $0) }
            request.propertiesToUpdate = update.values.mapValues { NSExpression(format: $0) }
            request.resultType = .updatedObjectsCountResultType
            var failure: State?
            do {
                _ = try library.context.execute(request)
            } catch {
                failure = .error((error as NSError).domain, (error as NSError).code)
            }
            library.context.reset()
            let books = (try? library.fetch("Book", nil)) ?? []
            let keys = library.keysByID
            let rows = Dictionary(uniqueKeysWithValues: books.map { book in
                (keys[book.objectID]!, ["\(book.value(forKey: "title") ?? "nil")", "\(book.value(forKey: "pages") ?? "nil")"])
            })
            return failure ?? .rows(rows)
        }
    }

    @Test func aSequenceOfBatchUpdatesLeavesTheSameRowsOrTheSameError() throws {
        let sqlite = try LibraryFixture()
        let postgreSQL = try LibraryFixture(type: ConformanceStore.postgreSQL.type, url: try PostgreSQLServer.required().storeURL())
        var refused = 0
        for update in Self.updates {
            let expected = Self.apply(update, to: sqlite)
            if case .error = expected { refused += 1 }
            #expect(Self.apply(update, to: postgreSQL) == expected, "\(update)")
        }
        #expect(refused == 4)
        // And after the refusals, the rows are still the same in both.
        let final = Self.apply(Update(["pages": "pages"]), to: sqlite)
        #expect(Self.apply(Update(["pages": "pages"]), to: postgreSQL) == final)
        // The division cut toward zero: L'Assommoir went 400 → 401 → 802 (< 500? no) → 100.
        guard case .rows(let rows) = final else { Issue.record("\(final)"); return }
        #expect(rows["b2"]?[1] == "1")
    }
}
