import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// Batch requests on a PostgreSQL store: the rows change on the server in one transaction, with
/// what Core Data promises around them (conflicts for contexts holding old versions, cascade and
/// deny rules, references cleared, keys that follow on, merge policies for broken constraints).
@Suite struct PostgreSQLBatchRequestTests {
    private static let type = NSPersistentStore.StoreType(rawValue: PostgreSQLStoreInstaller.typeName)

    private func context(_ model: NSManagedObjectModel, _ url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: Self.type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func names(_ context: NSManagedObjectContext, _ entity: String, _ key: String, where format: String = "TRUEPREDICATE") throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: format)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request).compactMap { $0.value(forKey: key) as? String }
    }

    @Test func aBatchUpdateWritesTheRowsAndAContextHoldingOneConflicts() throws {
        let url = try PostgreSQLServer.required().storeURL()
        let context = try context(TestModels.todo(), url)
        try StoreConformanceTests.items(in: context)
        try context.performAndWait {
            let held = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).first { $0.value(forKey: "name") as? String == "Item 1" }!
            let update = NSBatchUpdateRequest(entityName: "TSPItem")
            // MATCHES runs in memory here: the rows it selects are updated by key.
            update.predicate = NSPredicate(format: "name MATCHES %@", "Item 1[0-9]?")
            update.propertiesToUpdate = ["done": true]
            update.resultType = .updatedObjectIDsResultType
            let ids = try #require((try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
            #expect(ids.count == 11)
            #expect(try names(context, "TSPItem", "name", where: "done == YES").count == 7 + 11 - 3)
            held.setValue("edited", forKey: "name")
            let error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.code == NSManagedObjectMergeError)
        }
    }

    @Test func aBatchUpdateRefusesAValueOfTheWrongTypeAndChangesNothing() throws {
        let url = try PostgreSQLServer.required().storeURL()
        let context = try context(TestModels.todo(), url)
        try StoreConformanceTests.items(in: context)
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "TSPItem")
            update.propertiesToUpdate = ["createdAt": "yesterday"]
            let error = try #require(throws: NSError.self) { try context.execute(update) }
            #expect(error.code == NSManagedObjectValidationError)
            let copy = NSBatchUpdateRequest(entityName: "TSPItem")
            copy.propertiesToUpdate = ["name": NSExpression(forKeyPath: "createdAt")]
            #expect(throws: NSError.self) { try context.execute(copy) }
            #expect(try names(context, "TSPItem", "name").count == 20)
        }
    }

    @Test func aBatchDeleteCascadesClearsReferencesAndHonoursDeny() throws {
        let url = try PostgreSQLServer.required().storeURL()
        let context = try context(TestModels.library(), url)
        try context.performAndWait {
            let author = ConformanceStack.insert("Author", ["name": "Le Guin"], into: context)
            let tag = ConformanceStack.insert("Tag", ["label": "classic"], into: context)
            let publisher = ConformanceStack.insert("Publisher", ["name": "Ace"], into: context)
            for (index, title) in ["Earthsea", "Lathe", "Dispossessed"].enumerated() {
                let book = ConformanceStack.insert("Book", ["title": title, "isbn": "isbn-\(index)", "pages": 200], into: context)
                book.setValue(author, forKey: "author")
                book.mutableSetValue(forKey: "tags").add(tag)
                if index == 0 { book.setValue(publisher, forKey: "publisher") }
            }
            try context.save()
            // The publisher denies: its book survives the request, so nothing is deleted.
            let denied = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Publisher"))
            let error = try #require(throws: NSError.self) { try context.execute(denied) }
            #expect(error.code == NSValidationRelationshipDeniedDeleteError)
            #expect(try names(context, "Publisher", "name") == ["Ace"])
            // The author's books go with it (cascade), the publisher's and tag's references are cleared.
            let authors = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Author"))
            authors.resultType = .resultTypeObjectIDs
            let ids = try #require((try context.execute(authors) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
            #expect(ids.count == 4)
            context.reset()
            #expect(try names(context, "Book", "title").isEmpty)
            let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
            #expect(tags.count == 1)
            #expect((tags.first?.value(forKey: "books") as? Set<NSManagedObject>)?.isEmpty == true)
            let publishers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Publisher"))
            #expect((publishers.first?.value(forKey: "books") as? Set<NSManagedObject>)?.isEmpty == true)
        }
    }

    @Test func aBatchInsertTakesKeysAfterEveryoneElsesAndFollowsTheMergePolicy() throws {
        let url = try PostgreSQLServer.required().storeURL()
        let context = try context(TestModels.library(), url)
        let other = try self.context(TestModels.library(), url)
        try other.performAndWait {
            ConformanceStack.insert("Book", ["title": "Kept", "isbn": "1", "pages": 10], into: other)
            try other.save()
        }
        try context.performAndWait {
            let refused = NSBatchInsertRequest(entityName: "Book", objects: [["title": "New", "isbn": "2", "pages": 1], ["title": "Twin", "isbn": "1", "pages": 2]])
            let error = try #require(throws: NSError.self) { try context.execute(refused) }
            #expect(error.code == NSManagedObjectConstraintMergeError)
            #expect(try names(context, "Book", "title") == ["Kept"])
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let merged = NSBatchInsertRequest(entityName: "Book", objects: [["title": "New", "isbn": "2", "pages": 1], ["title": "Twin", "isbn": "1", "pages": 2]])
            merged.resultType = .count
            #expect((try context.execute(merged) as? NSBatchInsertResult)?.result as? Int == 2)
            // Batch requests write past the context: its registered "Kept" still shows the old title.
            context.reset()
            #expect(try names(context, "Book", "title") == ["New", "Twin"])
        }
        // A save elsewhere after the batch gets a key of its own.
        try other.performAndWait {
            ConformanceStack.insert("Book", ["title": "Later", "isbn": "3", "pages": 3], into: other)
            try other.save()
            let keys = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).map { $0.objectID.primaryKey }
            #expect(Set(keys).count == 3)
        }
    }
}
