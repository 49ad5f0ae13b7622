import Foundation
import Testing

@testable import OpenCoreData

/// `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)` on the fixture's model
/// versions and on models that break Core Data's rules.
@Suite struct InferredMappingTests {
    @Test func version1To2RenamesAnEntityAndTransformsTheChangedOnes() throws {
        let v1 = try FixtureModelVersion.sampleModel("SampleModel").load()
        let v2 = try FixtureModelVersion.sampleModel("SampleModel2").load()
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let byDestination = Dictionary(uniqueKeysWithValues: mapping.entityMappings.compactMap { m in m.destinationEntityName.map { ($0, m) } })
        #expect(Set(byDestination.keys) == ["Car", "SportCar", "LuxuryCar", "Person"])
        // LuxuryCar's renaming identifier names ExpensiveSportCar.
        let luxury = try #require(byDestination["LuxuryCar"])
        #expect(luxury.sourceEntityName == "ExpensiveSportCar")
        #expect(luxury.mappingType == .transformEntityMappingType)
        #expect(luxury.name == "ExpensiveSportCarToLuxuryCar")
        #expect(luxury.attributeMappings?.contains { $0.name == "isLimitedEdition" && $0.valueExpression != nil } == true)
        // Car lost `color` (and a transient): transformed, its other attributes mapped from the source.
        let car = try #require(byDestination["Car"])
        #expect(car.mappingType == .transformEntityMappingType)
        #expect(Set(car.attributeMappings?.compactMap(\.name) ?? []) == ["maker", "markedForDeletionAsOf", "model", "numberPlate"])
        #expect(car.attributeMappings?.allSatisfy { $0.valueExpression != nil } == true)
        #expect(car.relationshipMappings?.map(\.name) == ["owner"])
        #expect(byDestination["Person"]?.mappingType == .transformEntityMappingType)
        #expect(!mapping.entityMappings.contains { $0.mappingType == .addEntityMappingType || $0.mappingType == .removeEntityMappingType })
        #expect(mapping.entityMappingsByName["PersonToPerson"] != nil)
    }

    @Test func unchangedEntitiesAreCopiedNewOnesAddedMissingOnesRemoved() throws {
        func model(_ entities: [NSEntityDescription]) -> NSManagedObjectModel {
            let model = NSManagedObjectModel()
            model.entities = entities
            return model
        }
        let source = model([
            TestModels.entity("Kept", [TestModels.attribute("name", .stringAttributeType)]),
            TestModels.entity("Gone", [TestModels.attribute("name", .stringAttributeType)]),
        ])
        let destination = model([
            TestModels.entity("Kept", [TestModels.attribute("name", .stringAttributeType)]),
            TestModels.entity("New", [TestModels.attribute("title", .stringAttributeType)]),
        ])
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let types = Dictionary(uniqueKeysWithValues: mapping.entityMappings.map { ($0.name!, $0.mappingType) })
        #expect(types == ["KeptToKept": .copyEntityMappingType, "New": .addEntityMappingType, "Gone": .removeEntityMappingType])
    }

    @Test func aRenamedAttributeIsMappedFromItsOldName() throws {
        let old = TestModels.entity("Item", [TestModels.attribute("title", .stringAttributeType)])
        let renamed = TestModels.attribute("name", .stringAttributeType)
        renamed.renamingIdentifier = "title"
        let new = TestModels.entity("Item", [renamed, TestModels.attribute("added", .integer64AttributeType)])
        let source = NSManagedObjectModel()
        source.entities = [old]
        let destination = NSManagedObjectModel()
        destination.entities = [new]
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let attributes = try #require(mapping.entityMappings.first?.attributeMappings)
        #expect(attributes.first { $0.name == "name" }?.valueExpression?.description.contains("title") == true)
        #expect(attributes.first { $0.name == "added" }?.valueExpression == nil)
    }

    @Test func aChangedAttributeTypeCannotBeInferred() throws {
        let source = NSManagedObjectModel()
        source.entities = [TestModels.entity("Counter", [TestModels.attribute("count", .integer64AttributeType)])]
        let destination = NSManagedObjectModel()
        destination.entities = [TestModels.entity("Counter", [TestModels.attribute("count", .stringAttributeType)])]
        let error = try #require(throws: NSError.self) {
            try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSInferredMappingModelError)
        #expect(error.userInfo["entity"] as? String == "Counter")
        #expect(error.userInfo["property"] as? String == "count")
        #expect(error.userInfo["reason"] as? String == "Source and destination attribute types are incompatible")
    }

    @Test func twoHierarchiesCannotBecomeOne() throws {
        let source = NSManagedObjectModel()
        source.entities = [TestModels.entity("Cat"), TestModels.entity("Dog")]
        let animal = TestModels.entity("Animal")
        let cat = TestModels.entity("Cat")
        let dog = TestModels.entity("Dog")
        animal.subentities = [cat, dog]
        let destination = NSManagedObjectModel()
        destination.entities = [animal, cat, dog]
        let error = try #require(throws: NSError.self) {
            try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        }
        #expect(error.code == NSInferredMappingModelError)
        #expect((error.userInfo["reason"] as? String)?.contains("Cannot merge multiple root entity source tables") == true)
    }
}
