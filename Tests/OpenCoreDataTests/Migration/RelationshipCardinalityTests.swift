import Foundation
import Testing

@testable import OpenCoreData

/// A to-many relationship that becomes a to-one in a lightweight migration: the key moves from
/// the other side's column (or a many-to-many's join table) to this side's; an object that had
/// several related objects keeps the one with the lowest key, one that had none keeps none.
@Suite struct RelationshipCardinalityTests {
    /// Version 1's Person/Car entities; version 2 where `Person.cars` became `car`.
    static func garage(
        in directory: TemporaryDirectory, version1 carV1: String, personCarsV1: String, version2 carV2: String, personCarV2: String,
        sportCars: Bool = false
    ) throws -> URL {
        let bundle = directory.file("Garage.xcdatamodeld")
        let sport = sportCars ? #"<entity name="SportCar" representedClassName="NSManagedObject" parentEntity="Car" syncable="YES"/>"# : ""
        for (version, car, person) in [("1", carV1, personCarsV1), ("2", carV2, personCarV2)] {
            try TableAlterationTests.version(version, in: bundle, """
                <entity name="Car" representedClassName="NSManagedObject" syncable="YES">
                    <attribute name="plate" optional="YES" attributeType="String"/>
                    \(car)
                </entity>
                \(sport)
                <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    \(person)
                </entity>
                """)
        }
        return bundle
    }

    /// A version-1 store of "one car" (A), "no car" and "two cars" (B, then C; B a SportCar
    /// when `sportCars`), linked through `link`.
    static func fill(_ url: URL, bundle: URL, sportCars: Bool = false, link: @escaping (NSManagedObject, NSManagedObject) -> Void) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "1"))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func person(_ name: String, _ plates: [String]) {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue(name, forKey: "name")
                for plate in plates {
                    let car = NSEntityDescription.insertNewObject(forEntityName: sportCars && plate == "B" ? "SportCar" : "Car", into: context)
                    car.setValue(plate, forKey: "plate")
                    link(person, car)
                }
            }
            person("one car", ["A"])
            person("no car", [])
            person("two cars", ["B", "C"])
            try context.save()
        }
        try coordinator.remove(store)
    }

    /// Each person's car after the migration to version 2, as "plate entity".
    static func carsAfterMigration(_ url: URL, bundle: URL) throws -> [String: String] {
        let context = try TableAlterationTests.open(url, bundle: bundle, version: "2")
        return try context.performAndWait {
            Dictionary(uniqueKeysWithValues: try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { person in
                let car = person.value(forKey: "car") as? NSManagedObject
                return (person.value(forKey: "name") as! String, car.map { "\($0.value(forKey: "plate")!) \($0.entity.name!)" } ?? "-")
            })
        }
    }

    /// Version 1's one-to-many between Person and Car, and version 2's one-to-one.
    static let ownerV1 =
        #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>"#
    static let personCarsV1 =
        #"<relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>"#
    static let ownerV2 =
        #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="car" inverseEntity="Person"/>"#
    static let personCarV2 =
        #"<relationship name="car" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car" elementID="cars"/>"#

    @Test func aToManyBecomesAToOne() throws {
        let directory = TemporaryDirectory()
        let bundle = try Self.garage(
            in: directory,
            version1: Self.ownerV1, personCarsV1: Self.personCarsV1, version2: Self.ownerV2, personCarV2: Self.personCarV2)
        let url = directory.file("Garage.sqlite")
        try Self.fill(url, bundle: bundle) { person, car in car.setValue(person, forKey: "owner") }
        #expect(try Self.carsAfterMigration(url, bundle: bundle) == ["one car": "A Car", "no car": "-", "two cars": "B Car"])
        let context = try TableAlterationTests.open(url, bundle: bundle, version: "2")
        let owners = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car")).map {
                "\($0.value(forKey: "plate")!) \(($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String ?? "-")"
            }.sorted()
        }
        #expect(owners == ["A one car", "B two cars", "C two cars"])
    }

    /// A many-to-many that became a to-one: the key comes from the join table.
    @Test func aManyToManyBecomesAToOne() throws {
        let directory = TemporaryDirectory()
        let bundle = try Self.garage(
            in: directory,
            version1: #"<relationship name="owners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>"#,
            personCarsV1: #"<relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owners" inverseEntity="Car"/>"#,
            version2: #"<relationship name="owner" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="car" inverseEntity="Person" elementID="owners"/>"#,
            personCarV2: Self.personCarV2)
        let url = directory.file("Garage.sqlite")
        try Self.fill(url, bundle: bundle) { person, car in
            person.mutableSetValue(forKey: "cars").add(car)
        }
        #expect(try Self.carsAfterMigration(url, bundle: bundle) == ["one car": "A Car", "no car": "-", "two cars": "B Car"])
    }

    /// A to-many whose destination has subentities that became a to-one: the new to-one's entity
    /// column comes from the row its key names.
    @Test func aToManyOfAHierarchyBecomesAToOne() throws {
        let directory = TemporaryDirectory()
        let bundle = try Self.garage(
            in: directory,
            version1: Self.ownerV1, personCarsV1: Self.personCarsV1, version2: Self.ownerV2, personCarV2: Self.personCarV2, sportCars: true)
        let url = directory.file("Garage.sqlite")
        try Self.fill(url, bundle: bundle, sportCars: true) { person, car in car.setValue(person, forKey: "owner") }
        #expect(try Self.carsAfterMigration(url, bundle: bundle) == ["one car": "A Car", "no car": "-", "two cars": "B SportCar"])
    }
}
