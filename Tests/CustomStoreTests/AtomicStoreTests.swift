import Foundation
import CustomStores
import OpenCoreData
import Testing

/// `NSAtomicStore` as Apple documents it, through a JSON-file store written against the public
/// API only (`JSONFileStore`): loaded whole, fetched in memory, saved whole.
@Suite struct AtomicStoreTests {
    private static func open(_ url: URL) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: JSONFileStore.storeType)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: IncrementalStoreTests.model())
        try coordinator.addPersistentStore(ofType: JSONFileStore.storeType, configurationName: nil, at: url)
        return (coordinator, IncrementalStoreTests.context(coordinator))
    }

    private static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("AtomicStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func objectsSavedToTheFileAreReadBackByAnotherCoordinator() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Library.json")
        do {
            let (coordinator, _) = try Self.open(url)
            try IncrementalStoreTests.seed(coordinator)
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("The Dispossessed"))

        let (_, context) = try Self.open(url)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "title BEGINSWITH %@", "The")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let books = try context.fetch(request)
            #expect(books.map { $0.value(forKey: "title") as? String } == ["The Dispossessed", "The Lathe of Heaven"])
            let author = try #require(books.first?.value(forKey: "author") as? NSManagedObject)
            #expect(author.value(forKey: "name") as? String == "Le Guin")
            #expect((author.value(forKey: "books") as? Set<NSManagedObject>)?.count == 3)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 3)
        }
    }

    @Test func updatesAndDeletesAreWrittenAtTheNextSave() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Library.json")
        do {
            let (coordinator, context) = try Self.open(url)
            try IncrementalStoreTests.seed(coordinator)
            try context.performAndWait {
                let books = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
                let lathe = try #require(books.first { $0.value(forKey: "title") as? String == "The Lathe of Heaven" })
                lathe.setValue(200, forKey: "pages")
                let home = try #require(books.first { $0.value(forKey: "title") as? String == "Always Coming Home" })
                context.delete(home)
                try context.save()
            }
        }
        let (_, context) = try Self.open(url)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: true)]
            let books = try context.fetch(request)
            #expect(books.map { $0.value(forKey: "title") as? String } == ["The Lathe of Heaven", "The Dispossessed"])
            #expect(books.first?.value(forKey: "pages") as? Int64 == 200)
            let author = try #require(books.first?.value(forKey: "author") as? NSManagedObject)
            #expect((author.value(forKey: "books") as? Set<NSManagedObject>)?.count == 2)
        }
    }
}
