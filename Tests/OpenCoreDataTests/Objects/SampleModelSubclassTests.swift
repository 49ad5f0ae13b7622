import Foundation
import Testing

@testable import OpenCoreData

/// Apple's `SampleModel_V1.sqlite`, read and changed through hand-written `@NSManaged`
/// subclasses (`SampleModelClasses.swift`), whose accessors the ManagedObjectCodegen plugin
/// supplies.
@Suite struct SampleModelSubclassTests {
    func stack(in folder: TemporaryDirectory) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let copy = folder.file("SampleModel_V1.sqlite")
        try Data(contentsOf: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite")).write(to: copy)
        let model = try FixtureModelVersion.sampleModel("SampleModel").load()
        // The model's representedClassName has no module prefix, which Linux cannot resolve
        // alone; naming the classes with their module keeps them to this model (a registration
        // by entity name would reach every other test's `Person` and `Car`).
        for type in [Car.self, SportCar.self, ExpensiveSportCar.self, Person.self] as [NSManagedObject.Type] {
            let name = String(describing: type)
            model.entitiesByName[name]?.managedObjectClassName = String(reflecting: type)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: copy)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    @Test func applesStoreReadsThroughTypedProperties() throws {
        let folder = TemporaryDirectory()
        let (_, context) = try stack(in: folder)
        try context.performAndWait {
            let cars = try context.fetch(NSFetchRequest<Car>(entityName: "Car"))
            #expect(cars.count == 125)
            #expect(cars.filter { $0 is SportCar }.count == 10)
            let expensive = cars.compactMap { $0 as? ExpensiveSportCar }
            #expect(expensive.count == 5)
            #expect(cars.allSatisfy { !$0.numberPlate.isEmpty })
            #expect(cars.contains { !$0.displayName.isEmpty })
            #expect(cars.allSatisfy { $0.currentDrivingSpeed == 0 })
            let people = try context.fetch(NSFetchRequest<Person>(entityName: "Person"))
            #expect(people.count == 20)
            let owned = people.reduce(0) { $0 + ($1.cars?.count ?? 0) }
            #expect(owned == cars.filter { $0.owner != nil }.count)
            for car in cars {
                if let owner = car.owner { #expect(owner.cars?.contains(car) == true) }
            }
            #expect(Set(people.map(\.id)).count == 20)
            // The typed value is the one KVC gives.
            let first = try #require(people.first)
            #expect(first.firstName == first.value(forKey: "firstName") as? String)
            #expect(first.updatedAt == first.value(forKey: "updatedAt") as? Date)
            #expect(first.lastChange == first.updatedAt)
        }
    }

    @Test func changesThroughTypedAccessorsAreSaved() throws {
        let folder = TemporaryDirectory()
        let (coordinator, context) = try stack(in: folder)
        let plate = "OCD-21"
        try context.performAndWait {
            let person = Person(context: context)
            person.firstName = "Ada"
            person.lastName = "Lovelace"
            let car = ExpensiveSportCar(context: context)
            car.numberPlate = plate
            car.maker = "Analytical"
            car.isLimitedEdition = true
            person.addToCars(car)
            #expect(car.owner === person)
            try context.save()
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = coordinator
        try other.performAndWait {
            let request = NSFetchRequest<Car>(entityName: "Car")
            request.predicate = NSPredicate(format: "numberPlate == %@", plate)
            let car = try #require(try other.fetch(request).first as? ExpensiveSportCar)
            #expect(car.isLimitedEdition)
            #expect(car.owner?.fullName == "Ada Lovelace")
            let person = try #require(car.owner)
            person.removeFromCars(car)
            #expect(car.owner == nil)
            try other.save()
        }
    }

    /// `init(context:)` finds each class's entity, also when classes alternate and after the
    /// context moves to a coordinator with another model.
    @Test func initWithContextFindsTheEntityOfEachClassAndModel() throws {
        let folder = TemporaryDirectory()
        let (coordinator, context) = try stack(in: folder)
        context.performAndWait {
            let made: [NSManagedObject] = [Person(context: context), SportCar(context: context), Car(context: context), Person(context: context)]
            #expect(made.map(\.entity.name) == ["Person", "SportCar", "Car", "Person"])
            #expect(made.allSatisfy { $0.entity === coordinator.managedObjectModel.entitiesByName[$0.entity.name!] })
            context.reset()
        }
        let otherFolder = TemporaryDirectory()
        let (otherCoordinator, _) = try stack(in: otherFolder)
        context.persistentStoreCoordinator = otherCoordinator
        context.performAndWait {
            let person = Person(context: context)
            #expect(person.entity === otherCoordinator.managedObjectModel.entitiesByName["Person"])
            #expect(person.entity !== coordinator.managedObjectModel.entitiesByName["Person"])
        }
    }
}
