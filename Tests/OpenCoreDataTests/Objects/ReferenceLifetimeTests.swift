import Foundation
import Testing
@testable import OpenCoreData

/// Objects and IDs do not keep their context or store alive, and say so once those are gone:
/// they reach them through a shared token rather than a weak reference each.
@Suite struct ReferenceLifetimeTests {
    @Test func anIDLosesItsStoreWhenTheStoreIsRemovedAndDoesNotKeepItAlive() throws {
        let directory = TemporaryDirectory()
        let model = TestModels.todo()
        weak var released: NSPersistentStore?
        var id: NSManagedObjectID?
        do {
            let stack = try TestStack(model: model, directory: directory)
            id = try stack.context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                try stack.context.save()
                return item.objectID
            }
            #expect(id?.persistentStore === stack.store)
            try stack.coordinator.remove(stack.store)
            #expect(id?.persistentStore == nil)
            released = stack.store
        }
        #expect(released == nil)
        #expect(id?.isTemporaryID == false)
    }

    @Test func aCoordinatorThatGoesTakesItsStoresWithIt() throws {
        let directory = TemporaryDirectory()
        weak var released: NSPersistentStore?
        var id: NSManagedObjectID?
        do {
            let stack = try TestStack(model: TestModels.todo(), directory: directory)
            id = try stack.context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                try stack.context.save()
                return item.objectID
            }
            released = stack.store
        }
        #expect(released == nil)
        #expect(id?.persistentStore == nil)
    }

    @Test func anObjectLosesItsContextWhenTheContextIsReleased() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        var item: NSManagedObject?
        weak var released: NSManagedObjectContext?
        do {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = stack.coordinator
            context.performAndWait {
                item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                #expect(item?.managedObjectContext === context)
            }
            released = context
        }
        #expect(released == nil)
        #expect(item?.managedObjectContext == nil)
    }

    @Test func twoIDsOfOneRowAreEqualAndHashAlikeAcrossContexts() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let saved = try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            try stack.context.save()
            return item.objectID
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        let fetched = try other.performAndWait {
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem")
            request.resultType = .managedObjectIDResultType
            return try other.fetch(request)
        }
        #expect(fetched == [saved])
        #expect(Set(fetched).contains(saved))
        #expect(fetched[0] !== saved)
    }
}
