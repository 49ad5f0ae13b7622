import Foundation
import Testing

@testable import OpenCoreData

/// A program's first fetch, before it created any object, must already hand out the generated
/// classes: Linux cannot look a class up by its bare name, so the model's loader notes the module
/// its resource bundle belongs to, and `$(PRODUCT_MODULE_NAME).Product` and bare `Store` are
/// found in it.
@Suite struct ClassLookupTests {
    @Test func classesTheModelNamesWithoutAModuleAreFoundInTheTargetsModule() throws {
        let modelURL = try #require(Bundle.module.url(forResource: "Shop", withExtension: "xcdatamodeld"))
        let model = try NSManagedObjectModel(validatingContentsOf: modelURL)
        #expect(model.classModules.contains("GeneratedClassesTests"))
        let entities = model.entitiesByName
        #expect(NSManagedObjectModel.namedClass(entities["Store"]!.managedObjectClassName, modules: model.classModules) == Store.self)
        #expect(NSManagedObjectModel.namedClass(entities["Product"]!.managedObjectClassName, modules: model.classModules) == Product.self)
        #expect(NSManagedObjectModel.namedClass("GeneratedClassesTests.DiscountProduct", modules: []) == DiscountProduct.self)
        #expect(NSManagedObjectModel.namedClass("NoSuchClass", modules: model.classModules) == nil)
    }

    /// A model built in code names the class bare, as Xcode's editor shows it; the request's
    /// type says which class that is.
    @Test func aFetchTypedByASubclassHandsOutThatClassBeforeAnyObjectWasCreated() throws {
        let entity = NSEntityDescription()
        entity.name = "Gadget"
        entity.managedObjectClassName = "Gadget"
        let label = NSAttributeDescription()
        label.name = "label"
        label.attributeType = .stringAttributeType
        entity.properties = [label]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)

        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try writer.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Gadget", into: writer).setValue("lamp", forKey: "label")
            try writer.save()
        }

        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let labels = try reader.performAndWait {
            try reader.fetch(NSFetchRequest<Gadget>(entityName: "Gadget")).map { $0.value(forKey: "label") as? String }
        }
        #expect(labels == ["lamp"])
    }

    @Test func everySplitOfABundlesNameIsACandidateModule() {
        let url = URL(fileURLWithPath: "/app/My_Package_Shop-Models.resources/Shop.xcdatamodeld")
        let names = NSManagedObjectModel.moduleNames(besides: url)
        #expect(Array(names.prefix(2)) == ["Package_Shop_Models", "Shop_Models"])
    }

    /// A package with macros gets a host copy of its test targets, whose bundle is
    /// `<Package>_<Target>-tool`: the module is the target's.
    @Test func aHostCopysBundleNamesTheTargetsModule() {
        let url = URL(fileURLWithPath: "/app/.build/debug/Shop_ShopTests-tool.resources/Shop.xcdatamodeld")
        #expect(NSManagedObjectModel.moduleNames(besides: url).first == "ShopTests")
    }
}

/// Used by one test only, so that no earlier `init(context:)` made its entity's class known.
final class Gadget: NSManagedObject {}
