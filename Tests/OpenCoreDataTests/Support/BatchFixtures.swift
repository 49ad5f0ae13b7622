import Foundation
@testable import OpenCoreData

/// Data and models the batch request tests share.
enum BatchFixtures {
    /// The error `execute(_:)` throws for `request` in `context`, or nil when it succeeds.
    static func failure(_ request: NSPersistentStoreRequest, in context: NSManagedObjectContext) -> NSError? {
        context.performAndWait {
            do {
                _ = try context.execute(request)
                return nil
            } catch {
                return error as NSError
            }
        }
    }

    /// The first item's createdAt; item `i` was created `i` seconds later.
    static let start = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Saves `count` TSPItems "Item 0"…, the even ones done, and returns their IDs in order.
    static func saveItems(_ count: Int, in context: NSManagedObjectContext) throws -> [NSManagedObjectID] {
        try context.performAndWait {
            let items = (0..<count).map { i in
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("Item \(i)", forKey: "name")
                item.setValue(start.addingTimeInterval(Double(i)), forKey: "createdAt")
                item.setValue(i % 2 == 0, forKey: "done")
                return item
            }
            try context.save()
            return items.map(\.objectID)
        }
    }

    /// A private-queue context on `coordinator`.
    static func context(_ coordinator: NSPersistentStoreCoordinator, _ name: String) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }

    /// Departments and employees: `Department.employees` nullifies, `Employee.department` is its
    /// to-one inverse, and `Employee.manager` a to-one without inverse.
    static func company() -> NSManagedObjectModel {
        let department = TestModels.entity("Department")
        let employee = TestModels.entity("Employee")
        let employees = TestModels.relationship("employees", to: employee, toMany: true, deleteRule: .nullifyDeleteRule)
        let employer = TestModels.relationship("department", to: department, toMany: false)
        employees.inverseRelationship = employer
        employer.inverseRelationship = employees
        let manager = TestModels.relationship("manager", to: employee, toMany: false)
        department.properties = [TestModels.attribute("name", .stringAttributeType), employees]
        employee.properties = [TestModels.attribute("name", .stringAttributeType), employer, manager]
        let model = NSManagedObjectModel()
        model.entities = [department, employee]
        return model
    }

    /// Vehicle(name, wheels: Integer 16) with the subentity Truck(load: Double).
    static func vehicles() -> NSManagedObjectModel {
        let vehicle = TestModels.entity("Vehicle", [
            TestModels.attribute("name", .stringAttributeType), TestModels.attribute("wheels", .integer16AttributeType),
        ])
        let truck = TestModels.entity("Truck", [TestModels.attribute("load", .doubleAttributeType)])
        vehicle.subentities = [truck]
        let model = NSManagedObjectModel()
        model.entities = [vehicle, truck]
        return model
    }
}
