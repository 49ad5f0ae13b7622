import Testing
@testable import OpenCoreData

@Suite struct RelationshipTests {
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func settingOneSideKeepsTheInverse(type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory, type: type)
        stack.context.performAndWait {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            let bob = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("T", forKey: "title")
            book.setValue(ann, forKey: "author")
            #expect((ann.value(forKey: "books") as! Set<NSManagedObject>) == [book])
            ann.mutableSetValue(forKey: "books").remove(book)
            #expect(book.value(forKey: "author") == nil)
            bob.mutableSetValue(forKey: "books").add(book)
            #expect(book.value(forKey: "author") as? NSManagedObject === bob)
            #expect((ann.value(forKey: "books") as! Set<NSManagedObject>).isEmpty)
            book.setValue(ann, forKey: "author")
            #expect((bob.value(forKey: "books") as! Set<NSManagedObject>).isEmpty)
            #expect(book.value(forKeyPath: "author.name") == nil)
            ann.setValue("Ann", forKey: "name")
            #expect(book.value(forKeyPath: "author.name") as? String == "Ann")
        }
    }

    /// `mutableSetValue(forKey:)`'s live set answers `anyObject()` and `addObjects(from:)`
    /// through the relationship (Foundation on Linux implements them on its own storage).
    @Test func theLiveSetAnswersAnyObjectAndAddsArrays() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory, type: .inMemory)
        stack.context.performAndWait {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            let books = (0..<2).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context) }
            let live = ann.mutableSetValue(forKey: "books")
            #expect(live.anyObject() == nil)
            live.addObjects(from: books)
            #expect(live.count == 2)
            #expect(books.allSatisfy { $0.value(forKey: "author") as? NSManagedObject === ann })
            let any = live.anyObject() as? NSManagedObject
            #expect(any === books[0] || any === books[1])
        }
    }

    @Test func relationshipsSurviveASaveAndAFreshCoordinatorInBothDirections() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            ann.setValue("Ann", forKey: "name")
            let swift = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
            swift.setValue("swift", forKey: "label")
            let data = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
            data.setValue("data", forKey: "label")
            for title in ["A", "B"] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                book.setValue(title, forKey: "title")
                book.setValue(ann, forKey: "author")
                book.mutableSetValue(forKey: "tags").add(swift)
                if title == "B" { book.mutableSetValue(forKey: "tags").add(data) }
            }
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait { try checkReopened(again.context) }
        let third = try stack.reopened()
        try third.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.sortDescriptors = [NSSortDescriptor(key: "label", ascending: false)]
            let swift = try third.context.fetch(request)[0]
            #expect(swift.value(forKey: "label") as? String == "swift")
            let titles = (swift.value(forKey: "books") as! Set<NSManagedObject>).compactMap { $0.value(forKey: "title") as? String }
            #expect(titles == ["B"])
        }
    }

    private func checkReopened(_ context: NSManagedObjectContext) throws {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let books = try context.fetch(request)
            #expect(books.map { $0.value(forKey: "title") as? String } == ["A", "B"])
            let ann = try #require(books[0].value(forKey: "author") as? NSManagedObject)
            #expect(ann.value(forKey: "name") as? String == "Ann")
            #expect(ann === books[1].value(forKey: "author") as? NSManagedObject)
            #expect((ann.value(forKey: "books") as! Set<NSManagedObject>) == Set(books))
            let tagsOfB = (books[1].value(forKey: "tags") as! Set<NSManagedObject>).compactMap { $0.value(forKey: "label") as? String }
            #expect(Set(tagsOfB) == ["swift", "data"])
            let swift = (books[0].value(forKey: "tags") as! Set<NSManagedObject>).first!
            #expect((swift.value(forKey: "books") as! Set<NSManagedObject>).count == 2)

            swift.mutableSetValue(forKey: "books").remove(books[0])
            try context.save()
    }

    @Test func setValueForKeyPathSetsTheLastPropertyOfWhereThePathLeads() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        stack.context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            // An empty relationship on the way: nothing is set, nothing stops.
            book.setValue("Ann", forKeyPath: "author.name")
            #expect(book.value(forKey: "author") == nil)

            let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            book.setValue(ann, forKeyPath: "author")
            #expect(book.value(forKey: "author") as? NSManagedObject === ann)
            book.setValue("Ann", forKeyPath: "author.name")
            #expect(ann.value(forKey: "name") as? String == "Ann")

            // Through a to-many relationship: each of its objects.
            let other = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            other.setValue(ann, forKey: "author")
            ann.setValue("Draft", forKeyPath: "books.title")
            #expect(book.value(forKey: "title") as? String == "Draft")
            #expect(other.value(forKey: "title") as? String == "Draft")
        }
    }
}
