import Foundation
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
        // The view context keeps what it shows, as an app's list holds its objects: a merge
        // refreshes registered objects only, and the registry holds objects weakly.
        view.retainsRegisteredObjects = true
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
        // The view context tells of the merge with the objects it refreshed.
        let changes = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: view)
        try await container.performBackgroundTask { context in
            context.object(with: item).setValue("renamed in the background", forKey: "name")
            try context.save()
        }
        await changes.waitUntilReceived(1)
        let name = await view.perform { view.object(with: item).value(forKey: "name") as? String }
        #expect(name == "renamed in the background")
    }
}
