import Foundation
import OpenCoreData

// The classes of the fixture's SampleModel, written as an app targeting Apple's Core Data writes
// them: `@NSManaged` properties (optional, implicitly unwrapped, scalar, private(set)), to-many
// accessor methods in an extension, a subclass of a subclass, and computed properties of their
// own. The only change a port needs is the `#if canImport(ObjectiveC)` around `@objc(…)`.

#if canImport(ObjectiveC)
@objc(Car)
#endif
class Car: NSManagedObject {
    @NSManaged var maker: String?
    @NSManaged var model: String?
    @NSManaged var numberPlate: String!
    @NSManaged var markedForDeletionAsOf: Date?
    @NSManaged var owner: Person?
    @NSManaged var currentDrivingSpeed: Int

    /// What a list shows for the car.
    var displayName: String { [maker, model].compactMap { $0 }.joined(separator: " ") }
}

#if canImport(ObjectiveC)
@objc(SportCar)
#endif
class SportCar: Car {}

#if canImport(ObjectiveC)
@objc(ExpensiveSportCar)
#endif
final class ExpensiveSportCar: SportCar {
    @NSManaged var isLimitedEdition: Bool
}

#if canImport(ObjectiveC)
@objc(Person)
#endif
class Person: NSManagedObject {
    @NSManaged var firstName: String?
    @NSManaged var lastName: String?
    @NSManaged private(set) var id: UUID
    @NSManaged var updatedAt: Date
    @NSManaged var cars: NSSet?
    @NSManaged var isDriving: Bool
    @NSManaged private var primitiveUpdatedAt: Date

    var fullName: String { [firstName, lastName].compactMap { $0 }.joined(separator: " ") }

    /// Read through a private primitive accessor, as Apple apps write such properties.
    var lastChange: Date { primitiveUpdatedAt }

    override func awakeFromInsert() {
        super.awakeFromInsert()
        // The class is the first model version's; later versions (which the migration tests
        // create Persons of) have no `id`.
        if entity.attributesByName["id"] != nil { setPrimitiveValue(UUID(), forKey: "id") }
        setPrimitiveValue(Date(), forKey: "updatedAt")
    }
}

extension Person {
    #if canImport(ObjectiveC)
    @objc(addCarsObject:)
    #endif
    @NSManaged func addToCars(_ value: Car)

    #if canImport(ObjectiveC)
    @objc(removeCarsObject:)
    #endif
    @NSManaged func removeFromCars(_ value: Car)

    #if canImport(ObjectiveC)
    @objc(addCars:)
    #endif
    @NSManaged func addToCars(_ values: NSSet)

    #if canImport(ObjectiveC)
    @objc(removeCars:)
    #endif
    @NSManaged func removeFromCars(_ values: NSSet)
}
