import Foundation
import OpenCoreData

/// The models of the public benchmark shapes (`PublicShapes`), built in code, and the typed
/// classes an app would write for them with `@NSManaged` (the ManagedObjectCodegen plugin
/// supplies their accessors on Linux).
enum ShapeModels {
    /// RealmVsSwiftData's simple model: `User(id, firstName, surname, age)`.
    static func users() -> NSManagedObjectModel {
        let user = entity("User", ShapeUser.self, [
            attribute("id", .UUIDAttributeType), attribute("firstName", .stringAttributeType),
            attribute("surname", .stringAttributeType), attribute("age", .integer64AttributeType),
        ])
        return model([user])
    }

    /// RealmVsSwiftData's "complex" model: schools with students with grades.
    static func schools() -> NSManagedObjectModel {
        let school = entity("School", ShapeSchool.self, [
            attribute("id", .UUIDAttributeType), attribute("name", .stringAttributeType),
            attribute("location", .stringAttributeType), attribute("type", .stringAttributeType),
        ])
        let student = entity("Student", ShapeStudent.self, [
            attribute("id", .UUIDAttributeType), attribute("firstName", .stringAttributeType),
            attribute("surname", .stringAttributeType), attribute("age", .integer64AttributeType),
        ])
        let grade = entity("Grade", ShapeGrade.self, [
            attribute("id", .UUIDAttributeType), attribute("subject", .stringAttributeType),
            attribute("grade", .stringAttributeType), attribute("examBoard", .stringAttributeType),
        ])
        relate(student, "school", to: school, "students", deleteRule: .cascadeDeleteRule)
        relate(grade, "student", to: student, "grades", deleteRule: .cascadeDeleteRule)
        return model([grade, school, student])
    }

    /// The Northwind database's `Orders` table, as Lighter's suite reads it: 14 columns.
    static func orders() -> NSManagedObjectModel {
        let order = entity("Order", ShapeOrder.self, [
            attribute("orderID", .integer64AttributeType), attribute("customerID", .stringAttributeType),
            attribute("employeeID", .integer64AttributeType), attribute("orderDate", .dateAttributeType),
            attribute("requiredDate", .dateAttributeType), attribute("shippedDate", .dateAttributeType),
            attribute("shipVia", .integer64AttributeType), attribute("freight", .doubleAttributeType),
            attribute("shipName", .stringAttributeType), attribute("shipAddress", .stringAttributeType),
            attribute("shipCity", .stringAttributeType), attribute("shipRegion", .stringAttributeType),
            attribute("shipPostalCode", .stringAttributeType), attribute("shipCountry", .stringAttributeType),
        ])
        return model([order])
    }

    /// GRDB's performance table: ten integer columns.
    static func items() -> NSManagedObjectModel {
        model([entity("Item", ShapeItem.self, (0..<10).map { attribute("i\($0)", .integer64AttributeType) })])
    }

    private static func model(_ entities: [NSEntityDescription]) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }

    private static func entity(_ name: String, _ type: NSManagedObject.Type, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = String(describing: type)
        entity.properties = properties
        return entity
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = true
        if type == .integer64AttributeType { attribute.defaultValue = 0 }
        return attribute
    }

    /// A to-one from `source` to `destination` and its to-many inverse.
    private static func relate(
        _ source: NSEntityDescription, _ name: String, to destination: NSEntityDescription, _ inverseName: String,
        deleteRule: NSDeleteRule
    ) {
        let toOne = NSRelationshipDescription()
        toOne.name = name
        toOne.destinationEntity = destination
        toOne.maxCount = 1
        toOne.isOptional = true
        let toMany = NSRelationshipDescription()
        toMany.name = inverseName
        toMany.destinationEntity = source
        toMany.maxCount = 0
        toMany.isOptional = true
        toMany.deleteRule = deleteRule
        toOne.inverseRelationship = toMany
        toMany.inverseRelationship = toOne
        source.properties.append(toOne)
        destination.properties.append(toMany)
    }
}

final class ShapeUser: NSManagedObject {
    @NSManaged var id: UUID?
    @NSManaged var firstName: String?
    @NSManaged var surname: String?
    @NSManaged var age: Int64
}

final class ShapeSchool: NSManagedObject {
    @NSManaged var id: UUID?
    @NSManaged var name: String?
    @NSManaged var location: String?
    @NSManaged var type: String?
    @NSManaged var students: NSSet?
}

final class ShapeStudent: NSManagedObject {
    @NSManaged var id: UUID?
    @NSManaged var firstName: String?
    @NSManaged var surname: String?
    @NSManaged var age: Int64
    @NSManaged var school: ShapeSchool?
    @NSManaged var grades: NSSet?
}

final class ShapeGrade: NSManagedObject {
    @NSManaged var id: UUID?
    @NSManaged var subject: String?
    @NSManaged var grade: String?
    @NSManaged var examBoard: String?
    @NSManaged var student: ShapeStudent?
}

final class ShapeOrder: NSManagedObject {
    @NSManaged var orderID: Int64
    @NSManaged var customerID: String?
    @NSManaged var employeeID: Int64
    @NSManaged var orderDate: Date?
    @NSManaged var requiredDate: Date?
    @NSManaged var shippedDate: Date?
    @NSManaged var shipVia: Int64
    @NSManaged var freight: Double
    @NSManaged var shipName: String?
    @NSManaged var shipAddress: String?
    @NSManaged var shipCity: String?
    @NSManaged var shipRegion: String?
    @NSManaged var shipPostalCode: String?
    @NSManaged var shipCountry: String?
}

final class ShapeItem: NSManagedObject {
    @NSManaged var i0: Int64
    @NSManaged var i1: Int64
    @NSManaged var i2: Int64
    @NSManaged var i3: Int64
    @NSManaged var i4: Int64
    @NSManaged var i5: Int64
    @NSManaged var i6: Int64
    @NSManaged var i7: Int64
    @NSManaged var i8: Int64
    @NSManaged var i9: Int64
}
