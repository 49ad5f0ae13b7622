import GRDB
import Testing

@testable import OpenCoreData

/// A save's new rows go several to an INSERT when their entity has no uniqueness constraint:
/// every row must still land with its own values and references, whatever the mix of entities.
@Suite struct SQLiteInsertTests {
    @Test func newRowsOfManyEntitiesLandWithTheirValuesInFewerStatements() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let recorder = StatementRecorder(stack.store)
        let authorCount = 70
        try stack.context.performAndWait {
            for index in 0..<authorCount {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
                // Every seventh name nil, others with quotes and non-ASCII text of varying length.
                if index % 7 != 0 { author.setValue("Author \(index) 'O\u{2019}Brien' \(String(repeating: "é", count: index))", forKey: "name") }
                // Books (constrained: one row a statement) and tags between the authors: the
                // authors' rows wait for a full statement while those are written.
                if index % 10 == 3 {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                    book.setValue("Book \(index)", forKey: "title")
                    book.setValue("isbn-\(index)", forKey: "isbn")
                    book.setValue(author, forKey: "author")
                    let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
                    tag.setValue("tag \(index)", forKey: "label")
                    tag.setValue(Set([book]), forKey: "books")
                }
            }
            try stack.context.save()
        }
        let authorInserts = recorder.all.filter { $0.hasPrefix("INSERT INTO ZAUTHOR") }
        // Two INSERTs of 32 authors, and the last 6 one by one.
        #expect(authorInserts.count == 2 + authorCount % SQLiteStore.rowsPerStatement)

        let again = try stack.reopened()
        try again.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            let authors = try again.context.fetch(request)
            #expect(authors.count == authorCount)
            var names = Set<String>()
            var nils = 0
            for author in authors {
                if let name = author.value(forKey: "name") as? String { names.insert(name) } else { nils += 1 }
            }
            #expect(nils == 10)
            let expected = Set((0..<authorCount).filter { $0 % 7 != 0 }.map {
                "Author \($0) 'O\u{2019}Brien' \(String(repeating: "é", count: $0))"
            })
            #expect(names == expected)
            let books = try again.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            #expect(books.count == 7)
            for book in books {
                let title = try #require(book.value(forKey: "title") as? String)
                let index = try #require(Int(title.dropFirst("Book ".count)))
                let author = try #require(book.value(forKey: "author") as? NSManagedObject)
                #expect(author.value(forKey: "name") as? String == (index % 7 == 0 ? nil : "Author \(index) 'O\u{2019}Brien' \(String(repeating: "é", count: index))"))
                let tags = try #require(book.value(forKey: "tags") as? Set<NSManagedObject>)
                #expect(tags.map { $0.value(forKey: "label") as? String } == ["tag \(index)"])
            }
        }
        let check = try DatabaseQueue(path: stack.url.path).read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Author'"),
             try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ZAUTHOR"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZAUTHOR WHERE Z_OPT != 1"))
        }
        #expect(check.0 == "ok")
        #expect(check.1 == Int64(authorCount))
        #expect(check.2 == Int64(authorCount))
        #expect(check.3 == 0)
    }
}
