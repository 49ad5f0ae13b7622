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

    @Test func everySplitOfABundlesNameIsACandidateModule() {
        let url = URL(fileURLWithPath: "/app/My_Package_Shop-Models.resources/Shop.xcdatamodeld")
        let names = NSManagedObjectModel.moduleNames(besides: url)
        #expect(Array(names.prefix(2)) == ["Package_Shop_Models", "Shop_Models"])
    }
}
