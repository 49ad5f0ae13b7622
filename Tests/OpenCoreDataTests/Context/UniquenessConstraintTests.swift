import Testing
@testable import OpenCoreData

@Suite
struct UniquenessConstraintTests {
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func duplicateKeyFailsWith133021AndLeavesTheStore(type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory, type: type)
        try stack.context.performAndWait {
            let first = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            first.setValue("First", forKey: "title")
            first.setValue("978-0", forKey: "isbn")
            try stack.context.save()
            let before = type == .sqlite ? try StoreSnapshot.rows(of: stack.url) : [:]

            let second = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            second.setValue("Second", forKey: "title")
            second.setValue("978-0", forKey: "isbn")
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSManagedObjectConstraintMergeError)
            let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
            #expect(conflicts.first?.constraint == ["isbn"])
            #expect(conflicts.first?.conflictingObjects.first === second)
            #expect(second.isInserted && second.objectID.isTemporaryID)
            if type == .sqlite { #expect(try StoreSnapshot.rows(of: stack.url) == before) }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.includesPendingChanges = false
            #expect(try stack.context.count(for: request) == 1)
        }
    }

    /// Vehicle(name) with Car(plate, unique) and Truck(load, a slot where Car has its plate):
    /// the in-memory store compared a Car's plate slot with rows of other entities and crashed
    /// ("Slot index out of range") where the SQLite store saved.
    static func vehicles() -> NSManagedObjectModel {
        let vehicle = TestModels.entity("Vehicle", [TestModels.attribute("name", .stringAttributeType)])
        let car = TestModels.entity("Car", [TestModels.attribute("plate", .stringAttributeType)])
        car.uniquenessConstraints = [["plate"]]
        let truck = TestModels.entity("Truck", [TestModels.attribute("load", .stringAttributeType)])
        vehicle.subentities = [car, truck]
        let model = NSManagedObjectModel()
        model.entities = [vehicle, car, truck]
        return model
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func aSubentitysConstraintIsCheckedWithinItsHierarchy(type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Self.vehicles(), directory: directory, type: type)
        try stack.context.performAndWait {
            let insert = { (entity: String, values: [String: String]) in
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: stack.context)
                for (key, value) in values { object.setValue(value, forKey: key) }
            }
            insert("Vehicle", ["name": "bike"])
            insert("Truck", ["name": "lorry", "load": "AB-123"])
            insert("Car", ["name": "mini", "plate": "AB-123"])
            insert("Car", ["name": "beetle", "plate": "CD-456"])
            try stack.context.save()

            insert("Car", ["name": "copy", "plate": "CD-456"])
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSManagedObjectConstraintMergeError)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Vehicle")
            request.includesPendingChanges = false
            #expect(try stack.context.count(for: request) == 4)
        }
    }

    /// Keys are numbered per hierarchy: the error's conflicting object was looked up by key alone
    /// and could be another hierarchy's object with the same key, which was then asked for the
    /// constraint's property and trapped (found by the model fuzzer).
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func theConflictingObjectIsTheViolatingHierarchys(type: NSPersistentStore.StoreType) throws {
        let model = Self.vehicles()
        model.entities += [TestModels.entity("Maker", [TestModels.attribute("title", .stringAttributeType)])]
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory, type: type)
        try stack.context.performAndWait {
            // Two makers take keys 1 and 2 of their table; the second car takes key 2 of its own.
            for _ in 0..<2 { _ = NSEntityDescription.insertNewObject(forEntityName: "Maker", into: stack.context) }
            var cars: [NSManagedObject] = []
            for _ in 0..<2 {
                let car = NSEntityDescription.insertNewObject(forEntityName: "Car", into: stack.context)
                car.setValue("AB-123", forKey: "plate")
                cars.append(car)
            }
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSManagedObjectConstraintMergeError)
            let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
            let conflicting = try #require(conflicts.first?.conflictingObjects.first)
            #expect(cars.contains { $0 === conflicting })
            #expect(conflicts.first?.constraintValues["plate"] as? String == "AB-123")
        }
    }

    /// An entity with two constraints, `name` and `code` (a column name that is a prefix of
    /// another's, `ZCODE`/`ZCODES`): the error names the one that broke, in either store.
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func theBrokenConstraintIsTheOneNamed(type: NSPersistentStore.StoreType) throws {
        let tag = TestModels.entity("Tag", [
            TestModels.attribute("name", .stringAttributeType), TestModels.attribute("code", .stringAttributeType),
            TestModels.attribute("codes", .stringAttributeType),
        ])
        tag.uniquenessConstraints = [["codes"], ["name"], ["code"]]
        let model = NSManagedObjectModel()
        model.entities = [tag]
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory, type: type)
        try stack.context.performAndWait {
            func insert(_ name: String, _ code: String, _ codes: String) {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
                object.setValue(name, forKey: "name")
                object.setValue(code, forKey: "code")
                object.setValue(codes, forKey: "codes")
            }
            insert("red", "R", "r1")
            try stack.context.save()
            insert("rouge", "R", "r2")
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSManagedObjectConstraintMergeError)
            let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
            #expect(conflicts.first?.constraint == ["code"])
            stack.context.rollback()
            insert("rouge", "G", "r1")
            let second = try #require(throws: NSError.self) { try stack.context.save() }
            let secondConflicts = try #require(second.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
            #expect(secondConflicts.first?.constraint == ["codes"])
        }
    }
}
