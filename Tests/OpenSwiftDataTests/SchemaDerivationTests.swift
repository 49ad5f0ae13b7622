import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

// The three classes whose store, written by Apple's SwiftData, is described in
// docs/compatibility.md (SwiftData): the model derived from them must hash as that store says.
@Model final class Item {
    @Attribute(.unique) var name: String
    var craftingRecipe: CraftingRecipe?
    var id: String { name }

    init(name: String) { self.name = name }
}

@Model final class Component {
    var id = UUID()
    var count: Int = 1
    var item: Item?
    var craftingRecipe: CraftingRecipe?

    init() {}
}

@Model final class CraftingRecipe {
    var requiredComponents: [Component] = []
    var producedItemCount = "1"
    var producedItem: Item?
    @Transient var scratch = 0

    init() {}
}

/// The Core Data model SwiftData derives from `@Model` classes, as Apple's SwiftData derived it
/// for a store it wrote.
@Suite struct SchemaDerivationTests {
    @Test func theDerivedModelHashesAsApplesSwiftDataStore() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Item.self]))
        let hashes = model.entityVersionHashesByName.mapValues { $0.base64EncodedString() }
        #expect(hashes["Item"] == "aDosZj1R/mD7pBZf63kAh77Ycdg3umToHrHog2QowqU=")
        #expect(hashes["Component"] == "/IAgOoozmxSP0LbDsOWGomBZFWPPZ4CkBuafGKafhAY=")
        #expect(hashes["CraftingRecipe"] == "rMbIICaQP9i9dKOWWYj/uEDAeUEZzMnWs2Cgp1MQRhc=")
        #expect(model.versionIdentifiers == ["1.0.0"])
    }

    /// What the derivation makes of each property: stored `let`s kept, computed and `@Transient`
    /// ones left out, initial values as defaults, inverses inferred where unambiguous.
    @Test func propertiesBecomeAttributesAndRelationships() throws {
        let schema = Schema([Item.self])
        #expect(schema.entities.map(\.name) == ["Component", "CraftingRecipe", "Item"])
        let component = try #require(schema.entitiesByName["Component"])
        #expect(component.attributes.map(\.name) == ["id", "count"])
        #expect(component.attributes.first { $0.name == "count" }?.defaultValue as? Int == 1)
        let recipe = try #require(schema.entitiesByName["CraftingRecipe"])
        #expect(recipe.attributes.map(\.name) == ["producedItemCount"])
        let components = try #require(recipe.relationships.first { $0.name == "requiredComponents" })
        #expect(!components.isToOneRelationship && components.inverseName == "craftingRecipe" && components.destination == "Component")
        #expect(component.relationships.first { $0.name == "item" }?.inverseName == nil)
        #expect(recipe.relationships.first { $0.name == "producedItem" }?.inverseName == "craftingRecipe")
        #expect(schema.entitiesByName["Item"]?.uniquenessConstraints == [["name"]])

        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Item.self]))
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.attributesByName["name"]?.isOptional == false)
        #expect(item.relationshipsByName["craftingRecipe"]?.isOptional == true)
        #expect(model.entitiesByName["CraftingRecipe"]?.relationshipsByName["requiredComponents"]?.isOptional == false)
        #expect(model.entitiesByName["Component"]?.attributesByName["count"]?.defaultValue as? NSNumber == 1)
    }
}
