import Foundation
import GRDB
import Logging
import Testing

@testable import OpenCoreData

/// What a damaged store file can hold, found by `StoreOpenerFuzzTests`: each of these stopped the
/// program. Now a row that cannot be read is an error, a reference that leads nowhere reads as no
/// object, and a fault whose row is gone reads as empty (`shouldDeleteInaccessibleFaults`).
@Suite struct DamagedStoreTests {
    /// Vehicle(name) with subentities Car and Truck, in one table; Owner with a to-one `vehicle`,
    /// stored with the destination's entity number beside the key.
    static func model() -> NSManagedObjectModel {
        let vehicle = TestModels.entity("Vehicle", [TestModels.attribute("name", .stringAttributeType)])
        let car = TestModels.entity("Car")
        let truck = TestModels.entity("Truck")
        vehicle.subentities = [car, truck]
        let owner = TestModels.entity(
            "Owner", [TestModels.attribute("name", .stringAttributeType), TestModels.relationship("vehicle", to: vehicle, toMany: false)])
        let model = NSManagedObjectModel()
        model.entities = [vehicle, car, truck, owner]
        return model
    }

    /// A store with a car, a truck and an owner of the car; then `damage` runs on the closed file.
    static func damagedStore(in folder: TemporaryDirectory, _ damage: (Database, URL) throws -> Void) throws -> TestStack {
        let stack = try TestStack(model: model(), directory: folder)
        try stack.context.performAndWait {
            let car = NSEntityDescription.insertNewObject(forEntityName: "Car", into: stack.context)
            car.setValue("car", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Truck", into: stack.context).setValue("truck", forKey: "name")
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: stack.context)
            owner.setValue("ann", forKey: "name")
            owner.setValue(car, forKey: "vehicle")
            try stack.context.save()
        }
        try stack.coordinator.remove(stack.store)
        try DatabaseQueue(path: stack.url.path).writeWithoutTransaction { try damage($0, stack.url) }
        let reopened = try TestStack(model: stack.coordinator.managedObjectModel, directory: folder)
        reopened.coordinator.logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        return reopened
    }

    static func fetch(_ entity: String, _ context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request)
    }

    @Test func aRowWhoseEntityNumberIsNoEntityOfItsTableIsAnError() throws {
        let folder = TemporaryDirectory()
        let stack = try Self.damagedStore(in: folder) { db, _ in
            try db.execute(sql: "UPDATE ZVEHICLE SET Z_ENT = 99 WHERE ZNAME = 'car'")
        }
        try stack.context.performAndWait {
            let error = try #require(throws: NSError.self) { try Self.fetch("Vehicle", stack.context) }
            #expect(error.code == NSFileReadCorruptFileError)
            #expect(error.userInfo[NSSQLiteErrorDomain] as? Int == 11, "\(error)")
            #expect("\(error)".contains("Z_ENT 99"), "\(error)")
            // The other table is unaffected.
            #expect(try Self.fetch("Owner", stack.context).count == 1)
        }
    }

    /// A damaged row met by a single-row read (here `existingObject(with:)`) leaves the
    /// connection that read it at the store's latest state: the next read sees a later save.
    @Test func aDamagedRowsErrorLeavesTheReaderSeeingLaterSaves() throws {
        let folder = TemporaryDirectory()
        let stack = try Self.damagedStore(in: folder) { db, _ in
            try db.execute(sql: "UPDATE ZVEHICLE SET Z_ENT = 99 WHERE ZNAME = 'car'")
        }
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = stack.coordinator
        try stack.context.performAndWait {
            let owner = try #require(try Self.fetch("Owner", stack.context).first)
            let car = try #require(owner.value(forKey: "vehicle") as? NSManagedObject)
            let error = try #require(throws: NSError.self) { try stack.context.existingObject(with: car.objectID) }
            #expect(error.code == NSFileReadCorruptFileError, "\(error)")
            try writer.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Truck", into: writer).setValue("van", forKey: "name")
                try writer.save()
            }
            #expect(try stack.context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Truck")) == 2)
            #expect(try Self.fetch("Owner", stack.context).count == 1)
        }
    }

    @Test func aToOneReferenceToNoEntityReadsAsNoObject() throws {
        let folder = TemporaryDirectory()
        let stack = try Self.damagedStore(in: folder) { db, _ in
            let column = try String.fetchOne(db, sql: "SELECT name FROM pragma_table_info('ZOWNER') WHERE name LIKE 'Z%\\_VEHICLE' ESCAPE '\\'")!
            try db.execute(sql: "UPDATE ZOWNER SET \(column) = 99")
        }
        try stack.context.performAndWait {
            let owner = try #require(try Self.fetch("Owner", stack.context).first)
            #expect(owner.value(forKey: "name") as? String == "ann")
            #expect(owner.value(forKey: "vehicle") == nil)
        }
    }

    @Test func aReferenceToADeletedRowReadsAsAnEmptyObject() throws {
        let folder = TemporaryDirectory()
        let stack = try Self.damagedStore(in: folder) { db, _ in
            try db.execute(sql: "DELETE FROM ZVEHICLE WHERE ZNAME = 'car'")
        }
        try stack.context.performAndWait {
            let owner = try #require(try Self.fetch("Owner", stack.context).first)
            let car = try #require(owner.value(forKey: "vehicle") as? NSManagedObject)
            #expect(car.value(forKey: "name") == nil)
            #expect(!car.isFault)
        }
    }

    @Test func metadataOfAnotherTypeIsNotAStore() throws {
        let folder = TemporaryDirectory()
        let url = folder.file("Test.sqlite")
        _ = try TestStack(model: Self.model(), directory: folder)
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = 42, Z_UUID = x'00'")
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = NULL WHERE Z_ENT = 1")
        }
        let error = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        }
        #expect(error.code == NSFileReadCorruptFileError)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
    }

    /// A damaged page fails every read of its table. A read's failed statement kept its error, and
    /// the next read of the same statement from GRDB's cache stopped the program on it.
    @Test func aDamagedTableFailsEveryReadWithoutStopping() throws {
        let folder = TemporaryDirectory()
        var ids: [NSManagedObjectID] = []
        let stack = try Self.damagedStore(in: folder) { db, url in
            let page = try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'ZVEHICLE'")!
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size")!
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            let handle = try FileHandle(forWritingTo: url)
            try handle.seek(toOffset: UInt64((page - 1) * size))
            try handle.write(contentsOf: Data(repeating: 0xFF, count: 16))
            try handle.close()
        }
        try stack.context.performAndWait {
            for _ in 0..<2 {
                let error = try #require(throws: NSError.self) { try Self.fetch("Vehicle", stack.context) }
                #expect(error.code == NSFileReadCorruptFileError)
            }
            let owner = try #require(try Self.fetch("Owner", stack.context).first)
            let car = try #require(owner.value(forKey: "vehicle") as? NSManagedObject)
            ids = [car.objectID]
            #expect(car.value(forKey: "name") == nil)
        }
        // A second context fires the same fault through the same cached statement.
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        other.performAndWait {
            let car = other.object(with: ids[0])
            #expect(car.value(forKey: "name") == nil)
        }
    }
}
