import Foundation
import Testing

import OpenCoreData

/// Swift key paths of the generated and hand-written classes name their properties, as they do on
/// Apple platforms through Objective-C: sort descriptors, expressions and `propertiesToFetch` built
/// from them fetch what their string twins fetch, through the SQLite store.
@Suite struct TypedKeyPathTests {
    /// A store with three products of a store named "Corner", and a note.
    func filledContext() throws -> (NSManagedObjectContext, URL) {
        let modelURL = try #require(Bundle.module.url(forResource: "Shop", withExtension: "xcdatamodeld"))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(validatingContentsOf: modelURL))
        // A folder per test, so that the files SQLite keeps beside the store go with it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("KeyPaths-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Shop.sqlite")
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let store = Store(context: context)
            store.name = "Corner"
            for (title, price) in [("Milk", 1.0), ("Bread", 2.5), ("Apples", 0.5)] {
                let product = Product(context: context)
                product.title = title
                product.price = price
                product.store = store
            }
            let note = Note(context: context)
            note.text = "Closed on Sundays"
            note.store = store
            try context.save()
            context.reset()
        }
        return (context, url)
    }

    func titles(_ request: NSFetchRequest<Product>, in context: NSManagedObjectContext) throws -> [String?] {
        try context.fetch(request).map(\.title)
    }

    /// Names come from the model the classes belong to, as a program has it loaded before it
    /// fetches.
    @Test func keyPathsNameTheirProperties() throws {
        let (context, url) = try filledContext()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // The model must be alive: it is where names come from.
        defer { withExtendedLifetime(context) {} }
        #expect(NSSortDescriptor(keyPath: \Product.price, ascending: true).key == "price")
        #expect(NSSortDescriptor(keyPath: \Product.title, ascending: true).key == "title")
        #expect(NSSortDescriptor(keyPath: \Store.isOpen, ascending: false).key == "isOpen")
        // Scalars read through another type's accessor are named by their own type.
        #expect(NSSortDescriptor(keyPath: \Product.stock, ascending: true).key == "stock")
        #expect(NSSortDescriptor(keyPath: \Product.weight, ascending: true).key == "weight")
        #expect(NSSortDescriptor(keyPath: \Store.legacyCount, ascending: true).key == "legacyCount")
        #expect(NSSortDescriptor(keyPath: \Product.store?.name, ascending: true).key == "store.name")
        #expect(NSSortDescriptor(keyPath: \DiscountProduct.discount, ascending: true).key == "discount")
        #expect(NSSortDescriptor(keyPath: \DiscountProduct.title, ascending: true).key == "title")
        #expect(NSSortDescriptor(keyPath: \Manager.name, ascending: true).key == "name")
        #expect(NSSortDescriptor(keyPath: \Note.store?.name, ascending: true).key == "store.name")
        #expect(NSExpression(forKeyPath: \Store.name).keyPath == "name")
        #expect(NSExpression(forKeyPath: \Product.store?.visits).keyPath == "store.visits")
        // A property of the class's own, not the model's: no name, as it has no Objective-C one.
        #expect(NSSortDescriptor(keyPath: \Manager.greeting, ascending: true).key == nil)
    }

    @Test func sortDescriptorsFromKeyPathsSortInTheStore() throws {
        let (context, url) = try filledContext()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try context.performAndWait {
            let request: NSFetchRequest<Product> = Product.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Product.price, ascending: false)]
            #expect(try titles(request, in: context) == ["Bread", "Milk", "Apples"])
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Product.title, ascending: true)]
            #expect(try titles(request, in: context) == ["Apples", "Bread", "Milk"])
            request.sortDescriptors = [NSSortDescriptor(SortDescriptor(\Product.title, order: .reverse))]
            #expect(try titles(request, in: context) == ["Milk", "Bread", "Apples"])
            request.sortDescriptors = [NSSortDescriptor(SortDescriptor(\Product.price))]
            #expect(try titles(request, in: context) == ["Apples", "Milk", "Bread"])
            request.predicate = NSComparisonPredicate(
                leftExpression: NSExpression(forKeyPath: \Product.store?.name), rightExpression: NSExpression(forConstantValue: "Corner"),
                modifier: .direct, type: .equalTo)
            let count = try context.count(for: request)
            #expect(count == 3)
        }
    }

    @Test func propertiesToFetchTakeKeyPaths() throws {
        let (context, url) = try filledContext()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Product")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [\Product.title, \Product.price]
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Product.price, ascending: true)]
            let rows = try context.fetch(request)
            #expect(rows.map { $0["title"] as? String } == ["Apples", "Milk", "Bread"])
            #expect(rows.first?.allKeys.count == 2)
        }
    }

    @Test func aKeyPathWithoutANameIsRefusedByTheFetch() throws {
        let (context, url) = try filledContext()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        context.performAndWait {
            let request = NSFetchRequest<Manager>(entityName: "Manager")
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Manager.greeting, ascending: true)]
            #expect(throws: (any Error).self) { try context.fetch(request) }
        }
    }
}
