import Testing
@testable import OpenCoreData

@Suite struct MainQueueContextTests {
    @Test func viewContextRunsBlocksOnTheMainQueueAndFollowsBackgroundSaves() async throws {
        let directory = TemporaryDirectory()
        let container = NSPersistentContainer(name: "Todo", managedObjectModel: TestModels.todo())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.file("Todo.sqlite"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        let onMain = await view.perform {
            dispatchPrecondition(condition: .onQueue(DispatchQueue.main))
            return view.isOnQueue
        }
        #expect(onMain)
        let item = try await view.perform {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: view)
            item.setValue("shown", forKey: "name")
            try view.save()
            return item.objectID
        }
        try await container.performBackgroundTask { context in
            context.object(with: item).setValue("renamed in the background", forKey: "name")
            try context.save()
        }
        var name: String?
        for _ in 0..<200 {
            name = await view.perform(schedule: .enqueued) { view.object(with: item).value(forKey: "name") as? String }
            if name == "renamed in the background" { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(name == "renamed in the background")
    }
}
