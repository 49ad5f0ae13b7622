import Foundation
import Testing

@testable import OpenCoreData

/// A to-many relationship that becomes a to-one in a lightweight migration: the key moves from
/// the other side's column to this side's; an object that had several related objects keeps the
/// one with the lowest key, one that had none keeps none.
@Suite struct RelationshipCardinalityTests {
    @Test func aToManyBecomesAToOne() throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Garage.xcdatamodeld")
        try TableAlterationTests.version("1", in: bundle, """
            <entity name="Car" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="plate" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
            </entity>
            <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
            </entity>
            """)
        try TableAlterationTests.version("2", in: bundle, """
            <entity name="Car" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="plate" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="car" inverseEntity="Person"/>
            </entity>
            <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="car" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car" elementID="cars"/>
            </entity>
            """)
        let url = directory.file("Garage.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "1"))
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                func person(_ name: String, _ plates: [String]) {
                    let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                    person.setValue(name, forKey: "name")
                    for plate in plates {
                        let car = NSEntityDescription.insertNewObject(forEntityName: "Car", into: context)
                        car.setValue(plate, forKey: "plate")
                        car.setValue(person, forKey: "owner")
                    }
                }
                person("one car", ["A"])
                person("no car", [])
                person("two cars", ["B", "C"])
                try context.save()
            }
            try coordinator.remove(store)
        }

        let context = try TableAlterationTests.open(url, bundle: bundle, version: "2")
        let cars = try context.performAndWait {
            Dictionary(uniqueKeysWithValues: try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { person in
                (person.value(forKey: "name") as! String, (person.value(forKey: "car") as? NSManagedObject)?.value(forKey: "plate") as? String ?? "-")
            })
        }
        #expect(cars == ["one car": "A", "no car": "-", "two cars": "B"])
        let owners = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car")).map {
                "\($0.value(forKey: "plate")!) \(($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String ?? "-")"
            }.sorted()
        }
        #expect(owners == ["A one car", "B two cars", "C two cars"])
    }
}
