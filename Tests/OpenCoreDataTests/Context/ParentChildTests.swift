import Testing
@testable import OpenCoreData

@Suite struct ParentChildTests {
    private func child(of parent: NSManagedObjectContext, _ name: String) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = parent
        context.name = name
        return context
    }

    private func storeCount(_ stack: TestStack, _ entity: String) throws -> Int {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = stack.coordinator
        return try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) }
    }

    @Test func threeLevelsDeepWithTemporaryIDHandover() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let root = stack.context
        let middle = child(of: root, "middle")
        let leaf = child(of: middle, "leaf")
        #expect(leaf.persistentStoreCoordinator === stack.coordinator)

        let (authorID, leafAuthor) = try leaf.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: leaf)
            author.setValue("Ann", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: leaf)
            book.setValue("First", forKey: "title")
            book.setValue(author, forKey: "author")
            try leaf.save()
            #expect(!leaf.hasChanges)
            return (author.objectID, author)
        }
        #expect(authorID.isTemporaryID)
        #expect(try storeCount(stack, "Author") == 0)

        // The middle context holds the leaf's changes as its own unsaved changes.
        try middle.performAndWait {
            #expect(middle.hasChanges)
            let authors = try middle.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
            #expect(authors.count == 1 && authors[0].objectID == authorID)
            let books = authors[0].value(forKey: "books") as! Set<NSManagedObject>
            #expect(books.first?.value(forKey: "title") as? String == "First")
            authors[0].setValue("Ann (edited in middle)", forKey: "name")
        }

        // A new child sees the parent's unsaved edit, through fetches and faults alike.
        let reader = child(of: middle, "reader")
        try reader.performAndWait {
            let author = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))[0]
            #expect(author.value(forKey: "name") as? String == "Ann (edited in middle)")
            let book = (author.value(forKey: "books") as! Set<NSManagedObject>).first!
            #expect(book.value(forKey: "author") as? NSManagedObject === author)
            #expect(try reader.existingObject(with: authorID) === author)
        }

        try middle.performAndWait { try middle.save() }
        #expect(try storeCount(stack, "Author") == 0)
        let permanentID = try root.performAndWait {
            let author = try #require(root.registeredObject(for: authorID))
            #expect(author.isInserted)
            try root.save()
            #expect(!author.objectID.isTemporaryID)
            return author.objectID
        }
        #expect(try storeCount(stack, "Author") == 1)
        #expect(try storeCount(stack, "Book") == 1)
        // The handover reaches every level below the root.
        let middleID = middle.performAndWait { middle.registeredObject(for: permanentID)?.objectID }
        let leafID = leaf.performAndWait { leafAuthor.objectID }
        #expect(middleID == permanentID)
        #expect(leafID == permanentID)
        leaf.performAndWait { #expect(leaf.registeredObject(for: permanentID) === leafAuthor) }
    }

    @Test func aChildThatDiscardsItsChangesLeavesTheParentAlone() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let id = try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            item.setValue("saved", forKey: "name")
            try stack.context.save()
            return item.objectID
        }
        let scratch = child(of: stack.context, "scratch")
        scratch.performAndWait {
            scratch.object(with: id).setValue("draft", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: scratch).setValue("new", forKey: "name")
            scratch.rollback()
            #expect(scratch.object(with: id).value(forKey: "name") as? String == "saved")
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: scratch).setValue("other", forKey: "name")
            scratch.reset()
        }
        let (changed, count) = try stack.context.performAndWait {
            (stack.context.hasChanges, try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")))
        }
        #expect(!changed)
        #expect(count == 1)
    }

    @Test func childDeletesAndValidationFailuresReachTheParentOnlyOnSave() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let id = try stack.context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("Doomed", forKey: "title")
            try stack.context.save()
            return book.objectID
        }
        let editor = child(of: stack.context, "editor")
        try editor.performAndWait {
            let invalid = NSEntityDescription.insertNewObject(forEntityName: "Book", into: editor)
            let error = try #require(throws: NSError.self) { try editor.save() }
            #expect(error.code == NSValidationMissingMandatoryPropertyError)
            editor.delete(invalid)
            editor.delete(editor.object(with: id))
            try editor.save()
        }
        try stack.context.performAndWait {
            #expect(stack.context.deletedObjects.map(\.objectID) == [id])
            try stack.context.save()
            #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 0)
        }
    }
}
