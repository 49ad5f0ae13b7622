import Foundation
import OpenCoreData
import Testing

/// The stores the inspector is tried on, each with the model it was really written with: Apple's
/// fixture stores, and a store OpenCoreData writes with every kind of value and relationship.
struct InspectedCase: Sendable, CustomTestStringConvertible {
    let testDescription: String
    /// Makes the store in `sandbox` and returns it with its real model.
    let make: @Sendable (InspectorSandbox) throws -> (store: URL, model: NSManagedObjectModel)

    static let all: [InspectedCase] = apple + [written]

    static let apple: [InspectedCase] = [
        fixture("SampleModel/Fixtures/SampleModel_V1.sqlite", model: "SampleModel/SampleModel.xcdatamodeld", version: "SampleModel"),
        fixture("SampleModel/Fixtures/SampleModel_V2.sqlite", model: "SampleModel/SampleModel.xcdatamodeld", version: "SampleModel2"),
        fixture("SampleModel3/Fixtures/SampleModel3_V1.sqlite", model: "SampleModel3/SampleModel3.xcdatamodeld", version: "SampleModel3"),
        fixture("SampleModel2/SampleModel2_V2.sqlite", model: "SampleModel2/SampleModel2.xcdatamodel", version: nil),
    ]

    static func fixture(_ store: String, model: String, version: String?) -> InspectedCase {
        InspectedCase(testDescription: (store as NSString).lastPathComponent) { sandbox in
            let url = InspectorSandbox.fixtures.appendingPathComponent(model)
            let model = try version.map { try NSManagedObjectModel(contentsOf: url, versionName: $0) } ?? NSManagedObjectModel(validatingContentsOf: url)
            return (try sandbox.copyOfFixture(store), model)
        }
    }

    /// A store OpenCoreData writes: every attribute type a store keeps, a composite, a derived
    /// count, an external binary value, to-one, one-to-many, ordered and many-to-many
    /// relationships, a subentity, history.
    static let written = InspectedCase(testDescription: "written by OpenCoreData") { sandbox in
        let model = writtenModel()
        let url = sandbox.file("People.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let tags = ["red", "green", "blue, \"quoted\""].map { label -> NSManagedObject in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                tag.setValue(label, forKey: "label")
                return tag
            }
            for index in 0..<5 {
                let person = NSEntityDescription.insertNewObject(forEntityName: index == 4 ? "Employee" : "Person", into: context)
                person.setValue("Person \(index)", forKey: "name")
                person.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000.25 + Double(index)), forKey: "birth")
                person.setValue(Double(index) / 3, forKey: "score")
                person.setValue(index % 2 == 0, forKey: "active")
                person.setValue(UUID(), forKey: "identifier")
                person.setValue(URL(string: "https://example.com/\(index)"), forKey: "site")
                person.setValue(NSDecimalNumber(string: "1234.5\(index)"), forKey: "savings")
                person.setValue(Int16(index), forKey: "rank")
                person.setValue(Data(repeating: UInt8(index), count: index == 0 ? 200_000 : 16), forKey: "photo")
                if index != 3 { person.setValue(["city": "City \(index)", "zip": NSNumber(value: 1000 + index)], forKey: "address") }
                person.mutableOrderedSetValue(forKey: "tags").addObjects(from: Array(tags.prefix(index % 4)))
                if index == 4 { person.setValue("Engineering", forKey: "department") }
                for petIndex in 0..<index {
                    let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                    pet.setValue("Pet \(index).\(petIndex)", forKey: "name")
                    pet.setValue(person, forKey: "owner")
                }
            }
            try context.save()
        }
        try coordinator.remove(store)
        return (url, model)
    }

    static func writtenModel() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let person = NSEntityDescription()
        person.name = "Person"
        let employee = NSEntityDescription()
        employee.name = "Employee"
        let pet = NSEntityDescription()
        pet.name = "Pet"
        let tag = NSEntityDescription()
        tag.name = "Tag"
        let photo = attribute("photo", .binaryDataAttributeType)
        photo.allowsExternalBinaryDataStorage = true
        let address = NSCompositeAttributeDescription()
        address.name = "address"
        address.elements = [attribute("city", .stringAttributeType), attribute("zip", .integer32AttributeType)]
        let pets = NSRelationshipDescription()
        pets.name = "pets"
        pets.destinationEntity = pet
        pets.maxCount = 0
        pets.deleteRule = .cascadeDeleteRule
        let owner = NSRelationshipDescription()
        owner.name = "owner"
        owner.destinationEntity = person
        owner.maxCount = 1
        pets.inverseRelationship = owner
        owner.inverseRelationship = pets
        let tags = NSRelationshipDescription()
        tags.name = "tags"
        tags.destinationEntity = tag
        tags.maxCount = 0
        tags.isOrdered = true
        let people = NSRelationshipDescription()
        people.name = "people"
        people.destinationEntity = person
        people.maxCount = 0
        tags.inverseRelationship = people
        people.inverseRelationship = tags
        let petCount = NSDerivedAttributeDescription()
        petCount.name = "petCount"
        petCount.attributeType = .integer64AttributeType
        petCount.derivationExpression = NSExpression(format: "pets.@count")
        person.properties = [
            attribute("name", .stringAttributeType), attribute("birth", .dateAttributeType), attribute("score", .doubleAttributeType),
            attribute("active", .booleanAttributeType), attribute("identifier", .UUIDAttributeType), attribute("site", .URIAttributeType),
            attribute("savings", .decimalAttributeType), attribute("rank", .integer16AttributeType), photo, address, petCount, pets, tags,
        ]
        employee.properties = [attribute("department", .stringAttributeType)]
        person.subentities = [employee]
        pet.properties = [attribute("name", .stringAttributeType), owner]
        tag.properties = [attribute("label", .stringAttributeType), people]
        let model = NSManagedObjectModel()
        model.entities = [person, employee, pet, tag]
        return model
    }
}
