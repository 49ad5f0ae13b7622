import Foundation
import Testing

@testable import OpenCoreData

/// Composite attributes as Xcode's model editor writes them (`<composite>` definitions that
/// entity attributes name with `attributeType="Composite" composite="…"`), and as code builds them.
@Suite struct NSCompositeAttributeDescriptionTests {
    /// A place with a nested composite: Address(street, city, location: Location(latitude, longitude)).
    static let entities = """
        <entity name="Place" representedClassName="Place" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
        </entity>
        <composite name="Address">
            <attribute name="street" optional="YES" attributeType="String"/>
            <attribute name="city" optional="YES" attributeType="String"/>
            <attribute name="location" optional="YES" attributeType="Composite" composite="Location"/>
        </composite>
        <composite name="Location">
            <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
        </composite>
        """

    /// The model of `entities`, loaded from an `.xcdatamodel` as an app's model is.
    static func model(_ entities: String = entities) throws -> NSManagedObjectModel {
        let folder = TemporaryDirectory()
        return try withExtendedLifetime(folder) {
            try NSManagedObjectModel(validatingContentsOf: ModelSource.write(ModelSource.model(entities), in: folder))
        }
    }

    @Test func anXcodeModelsCompositeHasItsElementsNestedCompositesIncluded() throws {
        let place = try #require(try Self.model().entitiesByName["Place"])
        let address = try #require(place.attributesByName["address"] as? NSCompositeAttributeDescription)
        #expect(address.attributeType == .compositeAttributeType)
        #expect(address.elements.map(\.name) == ["street", "city", "location"])
        let location = try #require(address.elements.last as? NSCompositeAttributeDescription)
        #expect(location.elements.map(\.name) == ["latitude", "longitude"])
        #expect(location.elements.map(\.attributeType) == [.doubleAttributeType, .doubleAttributeType])
        // The composite is one property of the entity; its elements are not.
        #expect(place.propertiesByName.keys.sorted() == ["address", "name"])
    }

    @Test func aCompositeThatContainsItselfOrIsUnknownIsACorruptModel() throws {
        let looping = """
            <entity name="Node" syncable="YES">
                <attribute name="shape" optional="YES" attributeType="Composite" composite="Shape"/>
            </entity>
            <composite name="Shape">
                <attribute name="inner" optional="YES" attributeType="Composite" composite="Shape"/>
            </composite>
            """
        let error = try #require(throws: NSError.self) { try Self.model(looping) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("composite 'Shape' contains itself"), "\(error.localizedDescription)")

        let unknown = """
            <entity name="Node" syncable="YES">
                <attribute name="shape" optional="YES" attributeType="Composite" composite="Missing"/>
            </entity>
            """
        let unknownError = try #require(throws: NSError.self) { try Self.model(unknown) }
        #expect(unknownError.localizedDescription.contains("unknown composite 'Missing'"), "\(unknownError.localizedDescription)")
    }

    /// Core Data documents which element types a composite can't hold; a coordinator refuses a
    /// model that has one, instead of failing later in a save.
    @Test func aCoordinatorRefusesElementsACompositeCantHold() throws {
        func refusal(_ element: NSAttributeDescription) -> NSError? {
            let composite = NSCompositeAttributeDescription()
            composite.name = "box"
            composite.elements = [element]
            let model = NSManagedObjectModel()
            model.entities = [TestModels.entity("Crate", [composite])]
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            do {
                try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
                return nil
            } catch {
                return error as NSError
            }
        }
        let external = TestModels.attribute("photo", .binaryDataAttributeType)
        external.allowsExternalBinaryDataStorage = true
        for element in [TestModels.attribute("id", .objectIDAttributeType), TestModels.attribute("any", .undefinedAttributeType), external] {
            let error = try #require(refusal(element), "\(element.name)")
            #expect(error.code == NSCoreDataError)
            #expect(error.localizedDescription.contains("'Crate.box'"), "\(error.localizedDescription)")
        }
        #expect(refusal(TestModels.attribute("label", .stringAttributeType)) == nil)
    }

    @Test func theElementsTakePartInTheVersionHash() throws {
        func composite(_ types: [NSAttributeType]) -> NSCompositeAttributeDescription {
            let composite = NSCompositeAttributeDescription()
            composite.name = "magnitude"
            composite.elements = types.enumerated().map { TestModels.attribute("e\($0.offset)", $0.element) }
            return composite
        }
        #expect(composite([.doubleAttributeType]).versionHash == composite([.doubleAttributeType]).versionHash)
        #expect(composite([.doubleAttributeType]).versionHash != composite([.stringAttributeType]).versionHash)
        #expect(composite([.doubleAttributeType]).versionHash != composite([.doubleAttributeType, .doubleAttributeType]).versionHash)
    }
}
