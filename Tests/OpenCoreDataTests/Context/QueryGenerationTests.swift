import Foundation
import Testing

@testable import OpenCoreData

/// `NSQueryGenerationToken` on the SQLite store: a context pinned to a generation reads the store
/// as it was, through fetches, counts, faults and asynchronous fetches, until it saves, merges a
/// save, is reset or is given another generation.
@Suite struct QueryGenerationTests {
    /// A library and a second context on its coordinator.
    struct Setup {
        let library: LibraryFixture
        let reader: NSManagedObjectContext

        init(type: NSPersistentStore.StoreType = .sqlite) throws {
            library = try LibraryFixture(type: type)
            reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            reader.persistentStoreCoordinator = library.stack.coordinator
        }

        /// Another context saves: "Germinal" renamed, two books added, "orphan" deleted (9 books).
        func changeTheLibrary() throws {
            let context = library.context
            try context.performAndWait {
                library["b1"].setValue("Germinal (revised)", forKey: "title")
                for title in ["New one", "New two"] {
                    NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue(title, forKey: "title")
                }
                context.delete(library["b8"])
                try context.save()
            }
        }

        /// Pins the reader at a read of the library's 8 books, then changes the library.
        func pinThenChange() throws {
            try reader.performAndWait { try reader.setQueryGenerationFrom(.current) }
            #expect(try books(in: reader) == 8)
            try changeTheLibrary()
        }

        func books(in context: NSManagedObjectContext, _ format: String? = nil) throws -> Int {
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
                request.predicate = format.map { NSPredicate(format: $0) }
                return try context.fetch(request).count
            }
        }

        func count(in context: NSManagedObjectContext) throws -> Int {
            try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) }
        }

        /// The title of b1 as `context` reads it from the store (a fault fired now).
        func firstTitle(in context: NSManagedObjectContext) -> String? {
            let id = library["b1"].objectID
            return context.performAndWait {
                let book = context.object(with: id)
                context.refresh(book, mergeChanges: false)
                return book.value(forKey: "title") as? String
            }
        }
    }

    @Test func aPinnedContextKeepsReadingItsGeneration() throws {
        let setup = try Setup()
        let reader = setup.reader
        try setup.pinThenChange()

        #expect(try setup.books(in: reader) == 8)
        #expect(try setup.count(in: reader) == 8)
        #expect(try setup.books(in: reader, "title == 'Germinal'") == 1)
        #expect(try setup.books(in: reader, "title == 'orphan'") == 1)
        #expect(setup.firstTitle(in: reader) == "Germinal")
        let tags = try reader.performAndWait {
            let book = try reader.existingObject(with: setup.library["b8"].objectID)
            return (book.value(forKey: "tags") as? Set<NSManagedObject>)?.count
        }
        #expect(tags == 1)

        // A context that is not pinned reads the store as it is.
        let live = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        live.persistentStoreCoordinator = setup.library.stack.coordinator
        #expect(try setup.books(in: live) == 9)
        #expect(setup.firstTitle(in: live) == "Germinal (revised)")
    }

    @Test func theCurrentGenerationIsTheOneOfTheFirstRead() throws {
        let setup = try Setup()
        let reader = setup.reader
        try reader.performAndWait { try reader.setQueryGenerationFrom(.current) }
        #expect(reader.performAndWait { reader.queryGenerationToken } === NSQueryGenerationToken.current)
        try setup.changeTheLibrary()
        // Pinned at this read, after the change.
        #expect(try setup.books(in: reader) == 9)
        let token = try #require(reader.performAndWait { reader.queryGenerationToken })
        #expect(token !== NSQueryGenerationToken.current)
        try reader.performAndWait { try reader.setQueryGenerationFrom(nil) }
        #expect(reader.performAndWait { reader.queryGenerationToken } == nil)
    }

    @Test func savingMergingAndResettingMoveToTheCurrentGeneration() throws {
        let setup = try Setup()
        let reader = setup.reader
        let pin = { try reader.performAndWait { try reader.setQueryGenerationFrom(.current) } }

        try pin()
        #expect(try setup.books(in: reader) == 8)
        try setup.changeTheLibrary()
        #expect(try setup.books(in: reader) == 8)
        reader.performAndWait { reader.reset() }
        #expect(try setup.books(in: reader) == 9)

        // A save of its own.
        try pin()
        #expect(try setup.books(in: reader) == 9)
        try setup.library.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Book", into: setup.library.context).setValue("Third", forKey: "title")
            try setup.library.context.save()
        }
        #expect(try setup.books(in: reader) == 9)
        try reader.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Book", into: reader).setValue("Fourth", forKey: "title")
            try reader.save()
        }
        #expect(try setup.books(in: reader) == 11)

        // A merge of another context's save.
        try pin()
        #expect(try setup.books(in: reader) == 11)
        let recorder = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification, object: setup.library.context)
        try setup.library.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Book", into: setup.library.context).setValue("Fifth", forKey: "title")
            try setup.library.context.save()
        }
        #expect(try setup.books(in: reader) == 11)
        let saved = try #require(recorder.notifications.last)
        reader.mergeChanges(fromContextDidSave: saved)
        #expect(reader.performAndWait { reader.queryGenerationToken } === NSQueryGenerationToken.current)
        #expect(try setup.books(in: reader) == 12)
    }

    @Test func aTokenPinsAnotherContextToTheSameGeneration() throws {
        let setup = try Setup()
        let reader = setup.reader
        try reader.performAndWait { try reader.setQueryGenerationFrom(.current) }
        #expect(try setup.books(in: reader) == 8)
        let token = try #require(reader.performAndWait { reader.queryGenerationToken })
        try setup.changeTheLibrary()

        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = setup.library.stack.coordinator
        try other.performAndWait { try other.setQueryGenerationFrom(token) }
        #expect(try setup.books(in: other) == 8)
        #expect(other.performAndWait { other.queryGenerationToken } == token)
        #expect(token.copy() as? NSQueryGenerationToken == token)

        // A token of another coordinator's stores is refused, and changes nothing.
        let stranger = try Setup()
        let error = #expect(throws: NSError.self) { try stranger.reader.performAndWait { try stranger.reader.setQueryGenerationFrom(token) } }
        #expect(error?.code == NSPersistentStoreOperationError)
        #expect(stranger.reader.performAndWait { stranger.reader.queryGenerationToken } == nil)
    }

    @Test func anAsynchronousFetchReadsThePinnedGeneration() throws {
        let setup = try Setup()
        let reader = setup.reader
        try setup.pinThenChange()
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "Book"), context: reader)
        let result = try execute(request, in: reader)
        #expect(probe.wait())
        #expect(reader.performAndWait { result.finalResult?.count } == 8)
    }

    /// The in-memory store keeps no generations: a pinned context reads it as it is.
    @Test func theInMemoryStoreIsReadAsItIs() throws {
        let setup = try Setup(type: .inMemory)
        let reader = setup.reader
        try setup.pinThenChange()
        #expect(try setup.books(in: reader) == 9)
    }
}
