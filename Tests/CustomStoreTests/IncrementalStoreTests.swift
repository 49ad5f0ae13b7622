import Foundation
import CustomStores
import OpenCoreData
import Testing

/// `NSIncrementalStore` as Apple documents it, through a store written against the public API
/// only (`KeyValueStore`): Core Data hands it requests, asks it for values, and keeps the objects.
@Suite struct IncrementalStoreTests {
    /// Authors with books (to-many, inverse to-one author).
    static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let author = NSEntityDescription()
        author.name = "Author"
        author.managedObjectClassName = "NSManagedObject"
        let book = NSEntityDescription()
        book.name = "Book"
        book.managedObjectClassName = "NSManagedObject"
        let books = NSRelationshipDescription()
        books.name = "books"
        books.destinationEntity = book
        books.maxCount = 0
        books.isOptional = true
        books.deleteRule = .cascadeDeleteRule
        let writer = NSRelationshipDescription()
        writer.name = "author"
        writer.destinationEntity = author
        writer.maxCount = 1
        writer.isOptional = true
        books.inverseRelationship = writer
        writer.inverseRelationship = books
        author.properties = [attribute("name", .stringAttributeType), books]
        book.properties = [attribute("title", .stringAttributeType), attribute("pages", .integer64AttributeType), writer]
        let model = NSManagedObjectModel()
        model.entities = [author, book]
        return model
    }

    /// A coordinator with one `KeyValueStore`, registered under its type as apps do.
    static func stack() throws -> (NSPersistentStoreCoordinator, KeyValueStore) {
        NSPersistentStoreCoordinator.registerStoreClass(KeyValueStore.self, forStoreType: KeyValueStore.storeType)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(ofType: KeyValueStore.storeType, configurationName: nil, at: nil)
        return (coordinator, try #require(store as? KeyValueStore))
    }

    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves an author with three books.
    static func seed(_ coordinator: NSPersistentStoreCoordinator) throws {
        let context = context(coordinator)
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Le Guin", forKey: "name")
            for (title, pages) in [("The Dispossessed", 387), ("The Lathe of Heaven", 184), ("Always Coming Home", 523)] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue(title, forKey: "title")
                book.setValue(pages, forKey: "pages")
                book.setValue(author, forKey: "author")
            }
            try context.save()
        }
    }

    @Test func theStoreIsAddedWithTheTypeAndIdentifierItsMetadataNames() throws {
        let (_, store) = try Self.stack()
        #expect(store.type == KeyValueStore.storeType)
        #expect(store.identifier == store.metadata[NSStoreUUIDKey] as? String)
    }

    @Test func aSaveSendsTheStoreTheObjectsWithPermanentIDsAndAnotherContextReadsThemBack() throws {
        let (coordinator, store) = try Self.stack()
        try Self.seed(coordinator)
        let save = try #require(store.saveRequestsSeen.first)
        #expect(save.requestType == .saveRequestType)
        #expect(save.insertedObjects?.count == 4)
        #expect(save.insertedObjects?.allSatisfy { !$0.objectID.isTemporaryID } == true)

        let context = Self.context(coordinator)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "pages > %d", 200)
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
            let books = try context.fetch(request)
            #expect(books.map { $0.value(forKey: "title") as? String } == ["Always Coming Home", "The Dispossessed"])
            let author = try #require(books.first?.value(forKey: "author") as? NSManagedObject)
            #expect(author.value(forKey: "name") as? String == "Le Guin")
            let all = try #require(author.value(forKey: "books") as? Set<NSManagedObject>)
            #expect(all.count == 3)
        }
    }

    @Test func theStoreReceivesEveryFetchAsARequestOfNSFetchRequestResult() throws {
        let (coordinator, store) = try Self.stack()
        try Self.seed(coordinator)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let count = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book"))
            #expect(count == 3)
            #expect(store.fetchRequestsSeen.last?.resultType == .countResultType)
            let idsRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Author")
            idsRequest.resultType = .managedObjectIDResultType
            let ids = try context.fetch(idsRequest)
            #expect(ids.count == 1)
            #expect(store.fetchRequestsSeen.last?.entityName == "Author")
            #expect(store.fetchRequestsSeen.last?.resultType == .managedObjectIDResultType)
        }
    }

    @Test func referenceObjectsGiveTheSameIDAndBack() throws {
        let (coordinator, store) = try Self.stack()
        let book = try #require(coordinator.managedObjectModel.entitiesByName["Book"])
        let first = store.newObjectID(for: book, referenceObject: "b-1")
        #expect(store.newObjectID(for: book, referenceObject: "b-1") == first)
        #expect(store.newObjectID(for: book, referenceObject: "b-2") != first)
        #expect(store.referenceObject(for: first) as? String == "b-1")
        #expect(!first.isTemporaryID)
        #expect(first.persistentStore === store)
    }

    @Test func pendingChangesAreLaidOverWhatTheStoreAnswers() throws {
        let (coordinator, _) = try Self.stack()
        try Self.seed(coordinator)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let draft = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            draft.setValue("A Wizard of Earthsea", forKey: "title")
            draft.setValue(183, forKey: "pages")
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: true)]
            let titles = try context.fetch(request).map { $0.value(forKey: "title") as? String }
            #expect(titles == ["A Wizard of Earthsea", "The Lathe of Heaven", "The Dispossessed", "Always Coming Home"])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 4)
        }
    }

    @Test func updatesAndDeletesReachTheStore() throws {
        let (coordinator, store) = try Self.stack()
        try Self.seed(coordinator)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let books = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            let lathe = try #require(books.first { $0.value(forKey: "title") as? String == "The Lathe of Heaven" })
            lathe.setValue(200, forKey: "pages")
            let author = try #require(lathe.value(forKey: "author") as? NSManagedObject)
            try context.save()
            #expect(store.saveRequestsSeen.last?.updatedObjects?.contains(lathe) == true)
            context.delete(author)
            try context.save()
            // The cascade deleted the books with their author; the store was told of all four.
            #expect(store.saveRequestsSeen.last?.deletedObjects?.count == 4)
        }
        let fresh = Self.context(coordinator)
        let counts = try fresh.performAndWait {
            (try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")),
             try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")))
        }
        #expect(counts == (0, 0))
    }

    @Test func obtainPermanentIDsAsksTheStore() throws {
        let (coordinator, store) = try Self.stack()
        let context = Self.context(coordinator)
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            #expect(author.objectID.isTemporaryID)
            try context.obtainPermanentIDs(for: [author])
            #expect(!author.objectID.isTemporaryID)
            #expect(store.referenceObject(for: author.objectID) is String)
        }
    }
}
