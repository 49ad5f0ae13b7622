import Testing
@testable import OpenCoreData

@Suite struct DeleteRuleTests {
    private func author(_ context: NSManagedObjectContext, books: Int) -> NSManagedObject {
        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        author.setValue("Ann", forKey: "name")
        for i in 0..<books {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("Book \(i)", forKey: "title")
            book.setValue(author, forKey: "author")
        }
        return author
    }

    @Test func cascadeDeletesTheBooksOfADeletedAuthor() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let ann = author(stack.context, books: 3)
            try stack.context.save()
            stack.context.delete(ann)
            try stack.context.save()
            #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 0)
            #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 0)
        }
    }

    @Test func nullifyRemovesTheDeletedObjectFromTheInverse() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let ann = author(stack.context, books: 2)
            try stack.context.save()
            let book = (ann.value(forKey: "books") as! Set<NSManagedObject>).first!
            stack.context.delete(book)
            try stack.context.save()
            #expect((ann.value(forKey: "books") as! Set<NSManagedObject>).count == 1)
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let ann = try again.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first!
            #expect((ann.value(forKey: "books") as! Set<NSManagedObject>).count == 1)
        }
    }

    @Test func denyRuleRefusesTheSaveWith1600AndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let publisher = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: stack.context)
            publisher.setValue("P", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("T", forKey: "title")
            book.setValue(publisher, forKey: "publisher")
            try stack.context.save()
            let before = try StoreSnapshot.rows(of: stack.url)

            stack.context.delete(publisher)
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSValidationRelationshipDeniedDeleteError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "books")
            #expect(try StoreSnapshot.rows(of: stack.url) == before)
            #expect(book.value(forKey: "publisher") as? NSManagedObject === publisher)
            #expect(publisher.isDeleted)
        }
    }
}
