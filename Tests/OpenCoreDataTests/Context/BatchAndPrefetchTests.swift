import Testing
@testable import OpenCoreData

/// `fetchBatchSize` reads values batch by batch as the result is used, and
/// `relationshipKeyPathsForPrefetching` costs one query per relationship whatever the number of
/// objects; both proven by the SELECT statements the store runs.
@Suite struct BatchAndPrefetchTests {
    /// A library of `authors` authors with `booksEach` books each, every book with two tags.
    private func library(authors: Int, booksEach: Int, directory: TemporaryDirectory) throws -> TestStack {
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let tags = (0..<3).map { index -> NSManagedObject in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
                tag.setValue("tag \(index)", forKey: "label")
                return tag
            }
            let publisher = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: stack.context)
            publisher.setValue("House", forKey: "name")
            for a in 0..<authors {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
                author.setValue(String(format: "Author %03d", a), forKey: "name")
                for b in 0..<booksEach {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                    book.setValue("Book \(a)-\(b)", forKey: "title")
                    book.setValue(b + 1, forKey: "pages")
                    book.setValue(author, forKey: "author")
                    if b % 2 == 0 { book.setValue(publisher, forKey: "publisher") }
                    book.mutableSetValue(forKey: "tags").addObjects(from: [tags[b % 3], tags[(b + 1) % 3]])
                }
            }
            try stack.context.save()
            stack.context.reset()
        }
        return stack
    }

    /// Each batch is read once, when it is first used or, for the three after one in use, ahead
    /// of time on the store's thread; batches used out of order read nothing ahead.
    @Test func onlyTouchedBatchesAreRead() throws {
        let directory = TemporaryDirectory()
        let stack = try library(authors: 100, booksEach: 0, directory: directory)
        let recorder = StatementRecorder(stack.store)
        // A second reader connection opening runs a query of its own: count the batches' reads.
        func batchReads() -> Int { recorder.selects.filter { $0.contains("WHERE ZAUTHOR.Z_PK") }.count }
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.fetchBatchSize = 10
            let authors = try stack.context.fetch(request)
            #expect(authors.count == 100)
            // One query for the IDs, reading no attribute column.
            #expect(recorder.selects.count == 1)
            #expect(!recorder.selects[0].contains("ZNAME,") && !recorder.selects[0].hasSuffix("ZNAME FROM ZAUTHOR"))
            #expect(authors.allSatisfy { $0.isFault && $0.cachedRow == nil })

            #expect(authors[57].value(forKey: "name") as? String == "Author 057")
            #expect(authors[50].value(forKey: "name") as? String == "Author 050")
            #expect(recorder.selects.count == 2, "a batch used out of order reads nothing ahead")
            #expect(authors[3].value(forKey: "name") as? String == "Author 003")
            #expect(authors[9].value(forKey: "name") as? String == "Author 009")
            #expect(authors[0].value(forKey: "name") as? String == "Author 000")
            // The first batch reads the next three ahead: their rows wait beside the objects.
            let ahead = [10, 20, 30].map { authors[$0].fetchBatch?.pending }
            #expect(ahead.allSatisfy { ($0 != nil) == SecondThread.helps })
            for read in ahead { read?.waitUntilFinished() }
            #expect(batchReads() == (SecondThread.helps ? 5 : 2))

            // Exactly batches 0 and 5 hold values; the other eighty objects are bare faults.
            let loaded = authors.indices.filter { !authors[$0].isFault || authors[$0].cachedRow != nil }
            #expect(loaded == Array(0..<10) + Array(50..<60))
            // Iterating everything reads each remaining batch once.
            #expect(authors.map { $0.value(forKey: "name") as! String } == (0..<100).map { String(format: "Author %03d", $0) })
            #expect(batchReads() == 10)
        }
    }

    @Test func batchesWithPredicateAndPendingChanges() throws {
        let directory = TemporaryDirectory()
        let stack = try library(authors: 30, booksEach: 0, directory: directory)
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.predicate = NSPredicate(format: "name ENDSWITH '5' OR name ENDSWITH '0'")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
            request.fetchBatchSize = 2
            let names = try stack.context.fetch(request).map { $0.value(forKey: "name") as! String }
            #expect(names == ["Author 025", "Author 020", "Author 015", "Author 010", "Author 005", "Author 000"])
            // With unsaved changes the result is merged in memory, as without a batch size.
            let extra = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            extra.setValue("Author 030", forKey: "name")
            let merged = try stack.context.fetch(request)
            #expect(merged.first?.value(forKey: "name") as? String == "Author 030")
        }
    }

    @Test(arguments: [5, 40])
    func prefetchingCostsOneQueryPerRelationship(authors: Int) throws {
        let directory = TemporaryDirectory()
        let stack = try library(authors: authors, booksEach: 3, directory: directory)
        let recorder = StatementRecorder(stack.store)
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.relationshipKeyPathsForPrefetching = ["books", "books.tags", "books.publisher"]
            let fetched = try stack.context.fetch(request)
            #expect(fetched.count == authors)
            // Authors, their books, the books' tags, the books' publishers.
            #expect(recorder.selects.count == 4, "\(recorder.selects)")
            var pages = 0
            var labels = Set<String>()
            var publishers = 0
            for author in fetched {
                for book in author.value(forKey: "books") as! Set<NSManagedObject> {
                    pages += book.value(forKey: "pages") as! Int
                    for tag in book.value(forKey: "tags") as! Set<NSManagedObject> { labels.insert(tag.value(forKey: "label") as! String) }
                    if let publisher = book.value(forKey: "publisher") as? NSManagedObject, publisher.value(forKey: "name") as? String == "House" {
                        publishers += 1
                    }
                }
            }
            #expect(pages == authors * 6)
            #expect(labels.count == 3)
            #expect(publishers == authors * 2)
            #expect(recorder.selects.count == 4, "reading the prefetched graph ran no query")
            // Prefetched objects stay faults until read, and edits do not reach committed values.
            let first = fetched[0]
            let book = (first.value(forKey: "books") as! Set<NSManagedObject>).first!
            first.mutableSetValue(forKey: "books").remove(book)
            #expect(first.changedValues()["books"] != nil)
        }
    }

    /// Prefetched to-one destinations belong to their sources: a context that lets go of the
    /// objects nothing holds keeps them, and reading them runs no query.
    @Test func prefetchedDestinationsOutliveTheReleaseOfUnheldObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try library(authors: 1, booksEach: 300, directory: directory)
        let recorder = StatementRecorder(stack.store)
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.relationshipKeyPathsForPrefetching = ["author"]
            let books = try stack.context.fetch(request)
            // Taken from the registry: reading a book's relationship would itself make the book hold it.
            weak let author = stack.context.registeredObjects.first { $0.entity.name == "Author" }
            _ = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Publisher"))
            let selects = recorder.selects.count
            #expect(author != nil)
            let names = Set(books.map { ($0.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String })
            #expect(names == ["Author 000"])
            #expect(recorder.selects.count == selects, "\(recorder.selects.suffix(2))")
        }
    }

    @Test func withoutPrefetchingEveryRelationshipIsAQuery() throws {
        let directory = TemporaryDirectory()
        let stack = try library(authors: 5, booksEach: 2, directory: directory)
        let recorder = StatementRecorder(stack.store)
        try stack.context.performAndWait {
            for author in try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")) {
                _ = (author.value(forKey: "books") as! Set<NSManagedObject>).map { $0.value(forKey: "title") }
            }
            // The authors, each author's book keys, then each book's row.
            #expect(recorder.selects.count == 1 + 5 + 10)
        }
    }

    @Test func prefetchingWithBatchesPrefetchesEachBatch() throws {
        let directory = TemporaryDirectory()
        let stack = try library(authors: 20, booksEach: 2, directory: directory)
        let recorder = StatementRecorder(stack.store)
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.fetchBatchSize = 10
            request.relationshipKeyPathsForPrefetching = ["books"]
            let authors = try stack.context.fetch(request)
            #expect(recorder.selects.count == 1)
            let titles = (authors[12].value(forKey: "books") as! Set<NSManagedObject>).map { $0.value(forKey: "title") as! String }
            #expect(titles.sorted() == ["Book 12-0", "Book 12-1"])
            #expect((authors[19].value(forKey: "books") as! Set<NSManagedObject>).count == 2)
            // IDs, the second batch, its books.
            #expect(recorder.selects.count == 3)
        }
    }

    @Test func prefetchingAnUnknownKeyIsAnError() throws {
        let directory = TemporaryDirectory()
        let stack = try library(authors: 1, booksEach: 1, directory: directory)
        stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.relationshipKeyPathsForPrefetching = ["books.nope"]
            #expect(throws: (any Error).self) { try stack.context.fetch(request) }
        }
    }
}
