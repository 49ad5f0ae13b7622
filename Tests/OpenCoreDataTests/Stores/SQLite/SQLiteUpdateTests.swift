import GRDB
import Testing

@testable import OpenCoreData

/// Updates of some attributes of some objects: what a user would notice is every other value
/// still in the file after the save, and the version bumped once per updated row.
@Suite struct SQLiteUpdateTests {
    @Test func updatesOfDifferentColumnsInOneSaveKeepTheOthers() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        try stack.context.performAndWait {
            for i in 0..<6 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                item.setValue("Item \(i)", forKey: "name")
                item.setValue(start.addingTimeInterval(Double(i)), forKey: "createdAt")
                item.setValue(false, forKey: "done")
            }
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let items = try again.context.fetch(request)
            // Alternating sets of changed columns: done only, name only, both, nothing but a
            // no-op set (not an update at all).
            items[0].setValue(true, forKey: "done")
            items[1].setValue("Renamed 1", forKey: "name")
            items[2].setValue(true, forKey: "done")
            items[3].setValue("Renamed 3", forKey: "name")
            items[3].setValue(true, forKey: "done")
            items[4].setValue("Item 4", forKey: "name")
            #expect(again.context.updatedObjects.count == 4)
            try again.context.save()
        }
        let rows = try DatabaseQueue(path: stack.url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT ZNAME, ZCREATEDAT, ZDONE, Z_OPT FROM ZTSPITEM ORDER BY Z_PK")
        }
        let expected: [(String, Bool, Int)] = [
            ("Item 0", true, 2), ("Renamed 1", false, 2), ("Item 2", true, 2), ("Renamed 3", true, 2),
            ("Item 4", false, 1), ("Item 5", false, 1),
        ]
        #expect(rows.count == expected.count)
        for (index, (row, want)) in zip(rows, expected).enumerated() {
            #expect(row["ZNAME"] as String == want.0)
            #expect(row["ZDONE"] as Bool == want.1)
            #expect(row["Z_OPT"] as Int == want.2)
            #expect(row["ZCREATEDAT"] as Double == 700_000_000 + Double(index))
        }
    }

    @Test func aChangedToOneIsWrittenWithTheChangedAttribute() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let first = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            first.setValue("First", forKey: "name")
            let second = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            second.setValue("Second", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("Title", forKey: "title")
            book.setValue("isbn-1", forKey: "isbn")
            book.setValue(100, forKey: "pages")
            book.setValue(first, forKey: "author")
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let books = try again.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            let authors = try again.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
            let second = try #require(authors.first { $0.value(forKey: "name") as? String == "Second" })
            books[0].setValue(second, forKey: "author")
            books[0].setValue(200, forKey: "pages")
            try again.context.save()
        }
        let third = try stack.reopened()
        try third.context.performAndWait {
            let book = try #require(try third.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
            #expect((book.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String == "Second")
            #expect(book.value(forKey: "pages") as? Int == 200)
            #expect(book.value(forKey: "title") as? String == "Title")
            #expect(book.value(forKey: "isbn") as? String == "isbn-1")
        }
    }
}
