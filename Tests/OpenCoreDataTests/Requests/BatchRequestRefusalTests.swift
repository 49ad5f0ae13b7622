import Foundation
import Testing
@testable import OpenCoreData

/// Where Core Data cannot run a batch request, OpenCoreData refuses it with Core Data's error
/// instead of returning an empty result.
@Suite struct BatchRequestRefusalTests {
    private static func requests() -> [(String, NSPersistentStoreRequest)] {
        let update = NSBatchUpdateRequest(entityName: "TSPItem")
        update.propertiesToUpdate = ["done": true]
        update.resultType = .updatedObjectIDsResultType
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "TSPItem"))
        delete.resultType = .resultTypeObjectIDs
        let insert = NSBatchInsertRequest(entityName: "TSPItem", objects: [["name": "new"]])
        insert.resultType = .objectIDs
        return [("update", update), ("delete", delete), ("insert", insert)]
    }

    @Test func theInMemoryStoreRefusesEveryBatchRequest() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory, type: .inMemory)
        _ = try BatchFixtures.saveItems(3, in: stack.context)
        for (name, request) in Self.requests() {
            let error = BatchFixtures.failure(request, in: stack.context)
            #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError, "\(name)")
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect((error?.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first === stack.store)
        }
        let unchanged = try stack.context.performAndWait {
            try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).map { $0.value(forKey: "done") as! Bool }
        }
        #expect(unchanged.filter { $0 }.count == 2)
    }

    @Test func aChildContextRefusesEveryBatchRequest() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(3, in: stack.context)
        let before = try StoreSnapshot.rows(of: stack.url)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = stack.context
        for (name, request) in Self.requests() {
            #expect(BatchFixtures.failure(request, in: child)?.code == NSPersistentStoreUnsupportedRequestTypeError, "\(name)")
        }
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
    }

    @Test func aReadOnlyStoreRefusesEveryBatchRequest() throws {
        let directory = TemporaryDirectory()
        let url = try {
            let stack = try TestStack(model: TestModels.todo(), directory: directory)
            _ = try BatchFixtures.saveItems(3, in: stack.context)
            return stack.url
        }()
        let before = try StoreSnapshot.rows(of: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        let context = BatchFixtures.context(coordinator, "reader")
        for (name, request) in Self.requests() {
            #expect(BatchFixtures.failure(request, in: context)?.code == NSPersistentStoreSaveError, "\(name)")
        }
        #expect(try StoreSnapshot.rows(of: url) == before)
    }

    @Test func anUnknownEntityIsNamedInTheError() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let update = NSBatchUpdateRequest(entityName: "Nope")
        update.propertiesToUpdate = ["done": true]
        let requests: [NSPersistentStoreRequest] = [
            update, NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Nope")),
            NSBatchInsertRequest(entityName: "Nope", objects: []),
        ]
        for request in requests {
            let error = BatchFixtures.failure(request, in: stack.context)
            #expect(error?.code == NSCoreDataError)
            #expect(error?.userInfo["entityName"] as? String == "Nope")
        }
    }

    @Test func batchRequestsPostNoSaveNotification() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(3, in: stack.context)
        let saves = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification)
        let changes = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification)
        for (_, request) in Self.requests() {
            _ = try stack.context.performAndWait { try stack.context.execute(request) }
        }
        // As in Core Data: the store changed behind the contexts' backs, which learn of it only
        // through a merge of the returned IDs.
        let mine = { (note: Notification) in (note.object as? NSManagedObjectContext)?.persistentStoreCoordinator === stack.coordinator }
        #expect(saves.notifications.filter(mine).isEmpty)
        #expect(changes.notifications.filter(mine).isEmpty)
    }
}
