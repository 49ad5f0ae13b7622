import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// Derived attributes in Core Data's SQLite format: the triggers OpenCoreData creates are Apple's,
/// name for name and byte for byte (SampleModel2_V2.sqlite, written by Apple's Core Data, has those
/// of Book.pagesCount = `pages.@count`), and Apple's triggers keep their values in a copy of that
/// store as they do on Apple platforms.
@Suite struct DerivedAttributeTriggerTests {
    /// The derived-attribute triggers of the SQLite file at `url`, by name.
    static func triggers(at url: URL) throws -> [String: String] {
        let rows = try DatabaseQueue(path: url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z_DA_%'")
        }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as String, $0["sql"] as String) })
    }

    /// A copy of Apple's store in `directory`: opening the fixture itself would leave WAL files
    /// beside it.
    static func copyOfApplesStore(in directory: TemporaryDirectory) throws -> URL {
        let copy = directory.file("SampleModel2_V2.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url("SampleModel2/SampleModel2_V2.sqlite"), to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
        return copy
    }

    @Test func aNewStoresTriggersAreApples() throws {
        let directory = TemporaryDirectory()
        let apples = try Self.triggers(at: Self.copyOfApplesStore(in: directory))
        #expect(apples.count == 5)
        let url = directory.file("Books.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SampleModel2.model())
        try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
        let ours = try Self.triggers(at: url)
        #expect(ours.keys.sorted() == apples.keys.sorted())
        for (name, sql) in apples { #expect(ours[name] == sql, "\(name)") }
    }

    /// A copy of Apple's store: a page added to a book, another moved between books, one deleted;
    /// the books' counts follow as Apple's triggers keep them, in the saving context at once and
    /// in the file.
    @Test func applesStoreKeepsItsCountsUpToDate() throws {
        let directory = TemporaryDirectory()
        let copy = try Self.copyOfApplesStore(in: directory)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SampleModel2.model())
        try coordinator.addPersistentStore(type: .sqlite, at: copy, options: [NSIgnorePersistentStoreVersioningOption: true, NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        func counts() throws -> [Int] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request).map { ($0.value(forKey: "pagesCount") as? NSNumber)?.intValue ?? -1 }
        }
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let books = try context.fetch(request)
            #expect(books.count == 3)
            let before = try counts()
            // Apple's count is the pages each book has.
            #expect(before == books.map { ($0.value(forKey: "pages") as? Set<NSManagedObject>)?.count ?? -1 })

            // The book with the most pages gives one to the next; the last gains a new one.
            func pageCount(_ book: NSManagedObject) -> Int { (book.value(forKey: "pages") as? Set<NSManagedObject>)?.count ?? 0 }
            let order = books.indices.sorted { pageCount(books[$0]) > pageCount(books[$1]) }
            let (donor, receiver, grower) = (order[0], order[1], order[2])
            #expect(pageCount(books[donor]) > 1)
            let page = NSEntityDescription.insertNewObject(forEntityName: "Page", into: context)
            page.setValue(9_999, forKey: "number")
            page.setValue(Data([1]), forKey: "content")
            page.setValue(books[grower], forKey: "book")
            let moved = try #require((books[donor].value(forKey: "pages") as? Set<NSManagedObject>)?.first)
            moved.setValue(books[receiver], forKey: "book")
            try context.save()
            var expected = before
            expected[donor] -= 1
            expected[receiver] += 1
            expected[grower] += 1
            // The context's books have the counts the triggers computed, without a refetch.
            #expect(books.map { ($0.value(forKey: "pagesCount") as? NSNumber)?.intValue ?? -1 } == expected)
            #expect(books.allSatisfy { !$0.hasChanges })

            context.delete(page)
            try context.save()
            #expect((books[grower].value(forKey: "pagesCount") as? NSNumber)?.intValue == before[grower])
        }
        // In the file, for another coordinator.
        let reader = NSPersistentStoreCoordinator(managedObjectModel: SampleModel2.model())
        try reader.addPersistentStore(type: .sqlite, at: copy, options: [NSIgnorePersistentStoreVersioningOption: true, NSPersistentHistoryTrackingKey: true])
        let readerContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readerContext.persistentStoreCoordinator = reader
        let stored = try readerContext.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "pagesCount > 0")
            request.sortDescriptors = [NSSortDescriptor(key: "pagesCount", ascending: false)]
            return try readerContext.fetch(request).map { ($0.value(forKey: "pagesCount") as! NSNumber).intValue }
        }
        let expected = try context.performAndWait { try counts() }
        #expect(stored == expected.sorted(by: >))
    }
}
