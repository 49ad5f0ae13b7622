import Testing
@testable import OpenCoreData

@Suite struct ManagedObjectIDTests {
    @Test func temporaryIDsBecomePermanentAtSaveWithApplesURIForm() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            let temporary = item.objectID
            #expect(temporary.isTemporaryID)
            #expect(temporary.uriRepresentation().absoluteString.hasPrefix("x-coredata:///TSPItem/t"))
            #expect(stack.context.registeredObject(for: temporary) === item)
            try stack.context.save()
            let permanent = item.objectID
            #expect(!permanent.isTemporaryID)
            #expect(permanent.uriRepresentation().absoluteString == "x-coredata://\(stack.store.identifier!)/TSPItem/p1")
            #expect(permanent.persistentStore === stack.store)
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: permanent.uriRepresentation()) == permanent)
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/TSPItem/p1")!) == nil)
        }
    }

    @Test func obtainPermanentIDsReservesKeysBeforeSave() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let items = (0..<3).map { _ in NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context) }
            try stack.context.obtainPermanentIDs(for: items)
            #expect(items.allSatisfy { !$0.objectID.isTemporaryID })
            let ids = items.map(\.objectID)
            try stack.context.save()
            #expect(items.map(\.objectID) == ids)
        }
    }

    @Test func oneObjectPerIDPerContext() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let id = try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            item.setValue("one", forKey: "name")
            try stack.context.save()
            return item.objectID
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        try other.performAndWait {
            let viaID = other.object(with: id)
            #expect(viaID.isFault)
            let fetched = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            #expect(fetched.count == 1 && fetched[0] === viaID)
            #expect(try other.existingObject(with: id) === viaID)
            #expect(viaID.value(forKey: "name") as? String == "one")
            #expect(!viaID.isFault)
        }
    }

    @Test func existingObjectForAMissingRowIsError133000() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let id = NSManagedObjectID(entity: stack.coordinator.managedObjectModel.entitiesByName["TSPItem"]!, store: stack.store, primaryKey: 42)
            let error = try #require(throws: NSError.self) { try stack.context.existingObject(with: id) }
            #expect(error.code == NSManagedObjectReferentialIntegrityError)
        }
    }
}
