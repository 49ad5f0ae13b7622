import Testing
@testable import OpenCoreData

@Suite struct RemoveStoreTests {
    @Test func aRemovedStoreFileHoldsEverySaveOnItsOwn() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            for i in 0..<500 {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("Item \(i)", forKey: "name")
            }
            try stack.context.save()
        }
        try stack.coordinator.remove(stack.store)

        // Copy the store file alone, as a backup would, without its -wal and -shm companions.
        let copy = directory.file("Copy.sqlite")
        try FileManager.default.copyItem(at: stack.url, to: copy)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try coordinator.addPersistentStore(type: .sqlite, at: copy)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
        #expect(count == 500)
    }

    @Test func openingAndRemovingAStoreWithoutSavingLeavesItsFileAlone() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("kept", forKey: "name")
            try stack.context.save()
        }
        try stack.coordinator.remove(stack.store)
        let before = try Data(contentsOf: stack.url)

        let reopened = try stack.reopened()
        let count = try reopened.context.performAndWait {
            try reopened.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
        }
        try reopened.coordinator.remove(reopened.store)
        #expect(count == 1)
        #expect(try Data(contentsOf: stack.url) == before)
    }
}
