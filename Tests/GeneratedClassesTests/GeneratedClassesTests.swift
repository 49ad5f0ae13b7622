import Foundation
import Testing

import OpenCoreData

/// A target that holds a model and lists the ManagedObjectCodegen plugin gets Xcode's classes:
/// "Class Definition" entities (Store, Product and its subentity DiscountProduct) whole,
/// "Category/Extension" ones (Manager) their properties, "Manual/None" ones (Note) nothing. Every
/// attribute type and relationship kind, used through the generated API only.
@Suite struct GeneratedClassesTests {
    func container(adjusting adjust: (NSManagedObjectModel) -> Void = { _ in }) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext, URL) {
        let modelURL = try #require(Bundle.module.url(forResource: "Shop", withExtension: "xcdatamodeld"))
        let model = try NSManagedObjectModel(validatingContentsOf: modelURL)
        adjust(model)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        // A folder per test, so that the files SQLite keeps beside the store go with it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("Shop-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Shop.sqlite")
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context, url)
    }

    @Test func theGeneratedAPICreatesSavesAndFetches() throws {
        let (coordinator, context, url) = try container()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let code = UUID()
        let opened = Date(timeIntervalSinceReferenceDate: 86_400)
        try context.performAndWait {
            let store = Store(context: context)
            store.name = "Corner shop"
            store.code = code
            store.opened = opened
            store.isOpen = true
            store.rating = 4.5
            store.visits = Int64.max
            store.legacyCount = NSNumber(value: 7)
            store.budget = NSDecimalNumber(string: "1234.56")
            store.site = URL(string: "https://example.com/shop")
            store.logo = Data([1, 2, 3])
            store.extra = NSArray(array: [NSString(string: "open late")])
            store.labels = ["organic", "late"]

            let bread = Product(context: context)
            bread.title = "Bread"
            bread.price = 2.5
            bread.stock = 12
            bread.weight = 0.5
            bread.info = ["aisle": 3] as NSDictionary
            let milk = DiscountProduct(context: context)
            milk.title = "Milk"
            milk.discount = 0.1
            let eggs = Product(context: context)
            eggs.title = "Eggs"
            store.addToProducts(bread)
            store.addToProducts(NSSet(array: [milk, eggs]))
            store.addToFeatured(bread)
            store.insertIntoFeatured(milk, at: 0)
            store.replaceFeatured(at: 1, with: eggs)
            #expect((store.featured?.array as? [Product])?.map(\.title) == ["Milk", "Eggs"])
            #expect(bread.store === store)
            #expect(milk.featuredIn === store)
            #expect(bread.featuredIn == nil)

            let manager = Manager(context: context)
            manager.name = "Ann"
            store.manager = manager
            #expect(manager.greeting == "Hello, Ann")
            let note = Note(context: context)
            note.text = "Closed on Sundays"
            note.store = store
            #expect(store.notes?.count == 1)
            // Xcode's two-file "Manual/None" classes, each naming the other in `@NSManaged`.
            let shelf = Shelf(context: context)
            shelf.label = "Front"
            shelf.addToNotes(note)
            #expect(note.shelf === shelf)
            try context.save()
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = coordinator
        try other.performAndWait {
            let store = try #require(try other.fetch(Store.fetchRequest()).first)
            #expect(store.name == "Corner shop")
            #expect(store.code == code)
            #expect(store.opened == opened)
            #expect(store.isOpen)
            #expect(store.rating == 4.5)
            #expect(store.visits == Int64.max)
            #expect(store.legacyCount?.intValue == 7)
            #expect(store.budget == NSDecimalNumber(string: "1234.56"))
            #expect(store.site?.absoluteString == "https://example.com/shop")
            #expect(store.logo == Data([1, 2, 3]))
            #expect((store.extra as? NSArray)?.firstObject as? NSString == "open late")
            // Transformable attributes typed by their custom class.
            #expect(store.labels == ["organic", "late"])
            #expect(store.products?.count == 3)
            #expect((store.featured?.array as? [Product])?.map(\.title) == ["Milk", "Eggs"])
            #expect(store.manager?.greeting == "Hello, Ann")
            #expect((store.notes?.anyObject() as? Note)?.text == "Closed on Sundays")
            #expect((store.notes?.anyObject() as? Note)?.shelf?.label == "Front")
            let products = try other.fetch(Product.fetchRequest())
            #expect(products.count == 3)
            let milk = try #require(products.first { $0.title == "Milk" } as? DiscountProduct)
            #expect(milk.discount == 0.1)
            let bread = try #require(products.first { $0.title == "Bread" })
            #expect(bread.price == 2.5 && bread.stock == 12 && bread.weight == 0.5)
            #expect(bread.info?["aisle"] as? Int == 3)
            store.removeFromProducts(bread)
            store.removeFromFeatured(at: 0)
            #expect(bread.store == nil)
            #expect(milk.featuredIn == nil)
            // Identifiable, as Xcode's generated classes are.
            #expect(store.id == ObjectIdentifier(store))
        }
    }

    /// A subentity's objects are results of a request for its parent's class; objects of
    /// another class are not, and the fetch says so instead of handing out the wrong class.
    @Test func aFetchTypedByAClassItsObjectsAreNotFailsWith134060() throws {
        let (_, context, url) = try container()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try context.performAndWait {
            Product(context: context).title = "Bread"
            DiscountProduct(context: context).title = "Milk"
            try context.save()
            context.reset()
            let products = try context.fetch(NSFetchRequest<Product>(entityName: "Product"))
            #expect(Set(products.map(\.title)) == ["Bread", "Milk"])
            #expect(products.contains { $0 is DiscountProduct })
            do {
                _ = try context.fetch(NSFetchRequest<DiscountProduct>(entityName: "Product"))
                Issue.record("A Product was handed out as a DiscountProduct")
            } catch let error as NSError {
                #expect(error.code == NSCoreDataError)
            }
        }
    }

    /// A save checks a generated class's objects against the model without calling
    /// `validateValue(_:forKey:)` per property (a generated class cannot override it): the
    /// model's rules still hold, and a hand-written subclass of a generated class is still asked.
    @Test func generatedObjectsAreHeldToTheModelsRulesAndASubclassOfOneIsAskedToo() throws {
        let (_, context, url) = try container { model in
            model.entitiesByName["Product"]!.attributesByName["title"]!.isOptional = false
            model.entitiesByName["DiscountProduct"]!.managedObjectClassName = String(reflecting: CheckedDiscountProduct.self)
        }
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try context.performAndWait {
            let product = Product(context: context)
            var error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.code == NSValidationMissingMandatoryPropertyError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "title")
            product.title = "Pen"

            let discounted = CheckedDiscountProduct(context: context)
            discounted.title = "Ink"
            discounted.discount = 0.9
            error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.code == NSValidationNumberTooLargeError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "discount")
            discounted.discount = 0.25
            try context.save()
        }
    }
}

/// A hand-written subclass of a generated class, with a check of its own.
final class CheckedDiscountProduct: DiscountProduct {
    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        try super.validateValue(&value, forKey: key)
        if key == "discount", let discount = (value as? NSNumber)?.doubleValue, discount > 0.5 {
            throw NSError(domain: NSCocoaErrorDomain, code: NSValidationNumberTooLargeError, userInfo: [NSValidationKeyErrorKey: "discount"])
        }
    }
}
