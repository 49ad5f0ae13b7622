import Foundation
import Testing

@testable import OpenCoreData

/// Loading the fixture models from Xcode's XML: what a user sees of entities, properties and
/// relationships must be what the model editor shows.
@Suite struct XcodeModelLoaderTests {
    /// Entity names, in model order, and Xcode's "Model Version Identifier" of each version.
    static let expected: [String: (entities: [String], identifier: String)] = [
        "SampleModel/SampleModel": (["Car", "ExpensiveSportCar", "Person", "SportCar"], "1"),
        "SampleModel/SampleModel2": (["Car", "LuxuryCar", "Person", "SportCar"], "2"),
        "SampleModel/SampleModel3": (["Car", "LuxuryCar", "Maker", "Person", "SportCar"], "3"),
        "SampleModel3/SampleModel3": (["User"], "1"),
        "SampleModel3/SampleModel3_v2": (["Pet", "User"], "2"),
        "SampleModel3/SampleModel3_v3": (["Pet", "User"], "3"),
    ]

    @Test(arguments: FixtureModelVersion.all)
    func everyVersionLoads(_ version: FixtureModelVersion) throws {
        let model = try version.load()
        let expected = try #require(Self.expected[version.testDescription])
        #expect(model.entities.compactMap(\.name) == expected.entities)
        #expect(model.versionIdentifiers == [AnyHashable(expected.identifier)])
        #expect(model.entities.allSatisfy { $0.managedObjectModel === model })
        try model.freeze()
    }

    @Test func carHierarchy() throws {
        let model = try FixtureModelVersion.sampleModel("SampleModel").load()
        let entities = model.entitiesByName
        let car = try #require(entities["Car"])
        let sportCar = try #require(entities["SportCar"])
        let expensive = try #require(entities["ExpensiveSportCar"])

        #expect(car.superentity == nil)
        #expect(sportCar.superentity === car)
        #expect(expensive.superentity === sportCar)
        #expect(car.subentities.map(\.name) == ["SportCar"])
        #expect(sportCar.subentities.map(\.name) == ["ExpensiveSportCar"])
        #expect(expensive.isKindOf(entity: car))
        #expect(model.entities.allSatisfy { !$0.isAbstract })
        #expect(expensive.managedObjectClassName == "ExpensiveSportCar")

        let carProperties = ["color", "currentDrivingSpeed", "maker", "markedForDeletionAsOf", "model", "numberPlate", "owner"]
        #expect(car.properties.map(\.name) == carProperties)
        #expect(sportCar.properties.map(\.name) == carProperties)
        #expect(expensive.properties.map(\.name) == carProperties + ["isLimitedEdition"])
        #expect(expensive.propertiesByName["maker"] === car.propertiesByName["maker"])
    }

    @Test func carAttributes() throws {
        let car = try #require(try FixtureModelVersion.sampleModel("SampleModel").load().entitiesByName["Car"])
        let attributes = car.attributesByName

        let color = try #require(attributes["color"])
        #expect(color.attributeType == .transformableAttributeType)
        #expect(color.valueTransformerName == "ColorTransformer")
        #expect(color.attributeValueClassName == "Color")
        #expect(color.isOptional && !color.isTransient)

        let speed = try #require(attributes["currentDrivingSpeed"])
        #expect(speed.attributeType == .integer64AttributeType)
        #expect(speed.isTransient && speed.isOptional)
        #expect((speed.defaultValue as? NSNumber)?.int64Value == 0)

        let plate = try #require(attributes["numberPlate"])
        #expect(plate.attributeType == .stringAttributeType)
        #expect(!plate.isOptional, "an attribute without optional=\"YES\" is required")
        #expect(plate.defaultValue == nil)

        #expect(attributes["markedForDeletionAsOf"]?.attributeType == .dateAttributeType)
        #expect(attributes["maker"]?.isOptional == true)
        #expect(car.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["numberPlate"]])
    }

    @Test func personAttributes() throws {
        let model = try FixtureModelVersion.sampleModel("SampleModel").load()
        let person = try #require(model.entitiesByName["Person"])
        let attributes = person.attributesByName

        let id = try #require(attributes["id"])
        #expect(id.attributeType == .UUIDAttributeType)
        #expect(!id.isOptional)
        #expect(id.preservesValueInHistoryOnDeletion)

        let driving = try #require(attributes["isDriving"])
        #expect(driving.attributeType == .booleanAttributeType)
        #expect(driving.isTransient && !driving.isOptional)
        #expect((driving.defaultValue as? NSNumber)?.boolValue == false)

        #expect(attributes["updatedAt"]?.isOptional == false)
        #expect(person.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["firstName", "lastName"]])
        #expect(model.entitiesByName["SportCar"]?.uniquenessConstraints.isEmpty == true)
    }

    @Test func ownerAndCarsAreInverses() throws {
        let model = try FixtureModelVersion.sampleModel("SampleModel").load()
        let car = try #require(model.entitiesByName["Car"])
        let person = try #require(model.entitiesByName["Person"])
        let owner = try #require(car.relationshipsByName["owner"])
        let cars = try #require(person.relationshipsByName["cars"])

        #expect(owner.destinationEntity === person)
        #expect(owner.inverseRelationship === cars)
        #expect(!owner.isToMany && owner.maxCount == 1 && owner.minCount == 0)
        #expect(owner.isOptional && owner.deleteRule == .nullifyDeleteRule)

        #expect(cars.destinationEntity === car)
        #expect(cars.inverseRelationship === owner)
        #expect(cars.isToMany && cars.maxCount == 0 && !cars.isOrdered)
        #expect(person.relationships(forDestination: car) == [cars])
    }

    @Test func renamedEntityAndFetchIndex() throws {
        let model = try FixtureModelVersion.sampleModel("SampleModel2").load()
        let luxury = try #require(model.entitiesByName["LuxuryCar"])
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        #expect(luxury.superentity?.name == "SportCar")
        #expect((luxury.attributesByName["isLimitedEdition"]?.defaultValue as? NSNumber)?.boolValue == false)

        let car = try #require(model.entitiesByName["Car"])
        #expect(car.indexes.map(\.name) == ["byMakerAndNumberPlate"])
        let elements = try #require(car.indexes.first?.elements)
        #expect(elements.map(\.propertyName) == ["maker", "numberPlate"])
        #expect(elements.allSatisfy { $0.isAscending && $0.collationType == .binary })
        #expect(elements.first?.property === car.propertiesByName["maker"])
        #expect(car.indexes.first?.entity === car)
        #expect(car.attributesByName["color"] == nil, "SampleModel2 dropped the color attribute")
    }

    @Test func manyToManyAndSeveralRelationshipsToOneEntity() throws {
        let model = try FixtureModelVersion.sampleModel("SampleModel3").load()
        let car = try #require(model.entitiesByName["Car"])
        let person = try #require(model.entitiesByName["Person"])
        let maker = try #require(model.entitiesByName["Maker"])

        let previousOwners = try #require(car.relationshipsByName["previousOwners"])
        let previousCars = try #require(person.relationshipsByName["previousCars"])
        #expect(previousOwners.isToMany && previousCars.isToMany)
        #expect(previousOwners.inverseRelationship === previousCars)
        #expect(previousCars.inverseRelationship === previousOwners)

        let createdBy = try #require(car.relationshipsByName["createdBy"])
        #expect(createdBy.destinationEntity === maker && !createdBy.isToMany)
        #expect(createdBy.inverseRelationship === maker.relationshipsByName["cars"])
        #expect(car.relationships(forDestination: person).map(\.name) == ["owner", "previousOwners"])
        #expect(maker.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["name"]])
    }

    @Test func sampleModel3Versions() throws {
        let v1 = try FixtureModelVersion.sampleModel3("SampleModel3").load()
        let user = try #require(v1.entitiesByName["User"])
        #expect(user.properties.map(\.name) == ["name", "petName"])
        #expect(user.attributesByName["name"]?.isOptional == false)
        #expect(user.attributesByName["petName"]?.isOptional == true)

        let v3 = try FixtureModelVersion.sampleModel3("SampleModel3_v3").load()
        let pet = try #require(v3.entitiesByName["Pet"]?.relationshipsByName["owner"])
        #expect(v3.entitiesByName["User"]?.properties.map(\.name) == ["name", "pet"])
        #expect(!pet.isToMany && pet.inverseRelationship?.name == "pet" && pet.inverseRelationship?.isToMany == false)
    }

    // MARK: Choosing the file and the version

    @Test func aBundleLoadsItsCurrentVersion() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: Fixtures.url(FixtureModelVersion.sampleModelBundle))
        #expect(model.entitiesByName["ExpensiveSportCar"] != nil)
        #expect(model.versionIdentifiers == [AnyHashable("1")])
        let other = try #require(NSManagedObjectModel(contentsOf: Fixtures.url(FixtureModelVersion.sampleModel3Bundle)))
        #expect(other.entities.map(\.name) == ["User"])
    }

    @Test(arguments: ["SampleModel2", "SampleModel2.xcdatamodel"])
    func aBundleLoadsANamedVersion(_ name: String) throws {
        let model = try NSManagedObjectModel(contentsOf: Fixtures.url(FixtureModelVersion.sampleModelBundle), versionName: name)
        #expect(model.entitiesByName["LuxuryCar"] != nil)
        #expect(model.versionIdentifiers == [AnyHashable("2")])
    }

    @Test func anUnknownVersionNameIsAMissingFile() throws {
        let bundle = Fixtures.url(FixtureModelVersion.sampleModelBundle)
        let error = try #require(throws: NSError.self) {
            try NSManagedObjectModel(contentsOf: bundle, versionName: "SampleModel9")
        }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSFileReadNoSuchFileError)
        #expect(error.localizedDescription.contains("SampleModel9"))
        #expect(error.localizedDescription.contains("SampleModel2"), "the message lists the versions there are")
    }

    @Test func aVersionFolderAndItsContentsFileLoadToo() throws {
        let folder = Fixtures.url(FixtureModelVersion.sampleModelBundle).appendingPathComponent("SampleModel3.xcdatamodel")
        let fromFolder = try NSManagedObjectModel(validatingContentsOf: folder)
        let fromFile = try NSManagedObjectModel(validatingContentsOf: folder.appendingPathComponent("contents"))
        #expect(fromFolder.entitiesByName["Maker"] != nil)
        #expect(fromFolder.entityVersionHashesByName == fromFile.entityVersionHashesByName)
    }

    @Test func aBundleWithOneVersionAndNoCurrentVersionFileLoadsIt() throws {
        let folder = TemporaryDirectory()
        try withExtendedLifetime(folder) {
            let version = folder.url.appendingPathComponent("Only.xcdatamodeld/Only 1.xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            let source = Fixtures.url(FixtureModelVersion.sampleModel3Bundle + "/SampleModel3_v2.xcdatamodel/contents")
            try Data(contentsOf: source).write(to: version.appendingPathComponent("contents"))
            let model = try NSManagedObjectModel(validatingContentsOf: version.deletingLastPathComponent())
            #expect(model.entities.map(\.name) == ["Pet", "User"])
        }
    }

    @Test func aMissingModelGivesNil() {
        #expect(NSManagedObjectModel(contentsOf: Fixtures.url("Nowhere/Nothing.xcdatamodeld")) == nil)
    }
}
