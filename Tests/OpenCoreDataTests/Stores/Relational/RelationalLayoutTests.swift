import Testing
@testable import OpenCoreData

/// The table layout the relational stores derive from a model, in Core Data's names and order
/// (docs/sqlite-format.md §3, §5), so that a store this library writes opens in Core Data.
@Suite struct RelationalLayoutTests {
    /// Company(name, manager → Person, staff ⇢ ordered Person.employer); Person(name, managed)
    /// with the subentity Employee(salary).
    private static func staffModel() -> NSManagedObjectModel {
        let company = TestModels.entity("Company")
        let person = TestModels.entity("Person")
        let employee = TestModels.entity("Employee", [TestModels.attribute("salary", .doubleAttributeType)])
        person.subentities = [employee]
        let staff = TestModels.relationship("staff", to: person, toMany: true)
        staff.isOrdered = true
        let employer = TestModels.relationship("employer", to: company, toMany: false)
        staff.inverseRelationship = employer
        employer.inverseRelationship = staff
        let manager = TestModels.relationship("manager", to: person, toMany: false)
        let managed = TestModels.relationship("managed", to: company, toMany: true)
        manager.inverseRelationship = managed
        managed.inverseRelationship = manager
        company.properties = [TestModels.attribute("name", .stringAttributeType), staff, manager]
        person.properties = [TestModels.attribute("name", .stringAttributeType), employer, managed]
        let model = NSManagedObjectModel()
        model.entities = [company, person, employee]
        return model
    }

    @Test func aHierarchySharesItsRootsTableWithColumnsInCoreDatasOrder() throws {
        let model = Self.staffModel()
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.propertiesByName["name"]?.columnName == nil, "no layout before the model is in use")
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let employee = try #require(model.entitiesByName["Employee"])
        let company = try #require(model.entitiesByName["Company"])
        #expect(employee.tableName == "ZPERSON")
        #expect(company.tableName == "ZCOMPANY")
        // Integers first (to-one keys, then the order beside them), floats, then strings.
        #expect(person.tableColumns.map(\.name) == ["ZEMPLOYER", "Z_FOK_EMPLOYER", "ZSALARY", "ZNAME"])
        #expect(person.tableColumns.map(\.type) == ["INTEGER", "INTEGER", "FLOAT", "VARCHAR"])
        #expect(employee.tableColumns.map(\.name) == person.tableColumns.map(\.name))
        // An inherited property has its superentity's column.
        #expect(employee.propertiesByName["name"]?.columnName == "ZNAME")
        let employer = try #require(employee.relationshipsByName["employer"])
        #expect(employer.orderColumnName == "Z_FOK_EMPLOYER")
        #expect(employer.entityColumnName == nil)
        // Person (number 2) has a subentity: a to-one to it keeps the destination's number beside.
        let manager = try #require(company.relationshipsByName["manager"])
        #expect(manager.columnName == "ZMANAGER")
        #expect(manager.entityColumnName == "Z2_MANAGER")
        #expect(company.tableColumns.map(\.name) == ["ZMANAGER", "Z2_MANAGER", "ZNAME"])
        #expect(company.relationshipsByName["staff"]?.columnName == nil)
    }

    @Test func aManyToManyLivesInOneJoinTableNamedAfterTheLowerNumberedSide() throws {
        let model = TestModels.library()
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        // Store order: Author 1, Book 2, Publisher 3, Tag 4.
        let tags = try #require(model.entitiesByName["Book"]?.relationshipsByName["tags"]?.joinTable)
        let books = try #require(model.entitiesByName["Tag"]?.relationshipsByName["books"]?.joinTable)
        #expect(tags.name == "Z_2TAGS")
        #expect(books.name == "Z_2TAGS")
        #expect((tags.sourceColumn, tags.destinationColumn) == ("Z_2BOOKS", "Z_4TAGS"))
        #expect((books.sourceColumn, books.destinationColumn) == ("Z_4TAGS", "Z_2BOOKS"))
        #expect(tags.isOwner && !books.isOwner)
        #expect(model.entitiesByName["Author"]?.relationshipsByName["books"]?.joinTable == nil)
    }
}
