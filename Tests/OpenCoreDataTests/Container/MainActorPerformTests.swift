import Foundation
import Testing

@testable import OpenCoreData

/// The async `perform` and `performBackgroundTask` take blocks as Core Data declares them, so that
/// code written for it compiles as it is: a block written in main-actor code runs on the
/// context's queue (it is `@Sendable`, not isolated to the main actor), and a background task's
/// block need not be `@Sendable`, may return what is not `Sendable`, and needs no `try` when it
/// cannot throw. What they show is mostly that the calls compile: they did not when the blocks
/// were declared otherwise.
@Suite struct MainActorPerformTests {
    let directory = TemporaryDirectory()
    let container: NSPersistentContainer

    init() throws {
        container = NSPersistentContainer(name: "Todo", managedObjectModel: TestModels.todo())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.file("Todo.sqlite"))]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
    }

    @MainActor @Test func aBlockWrittenOnTheMainActorRunsOnTheContextsQueue() async throws {
        let background = container.newBackgroundContext()
        let (id, onQueue) = try await background.perform {
            let item = NSManagedObject(entity: background.persistentStoreCoordinator!.managedObjectModel.entitiesByName["TSPItem"]!, insertInto: background)
            item.setValue("Milk", forKey: "name")
            try background.save()
            return (item.objectID, background.isOnQueue)
        }
        #expect(onQueue)
        let coordinatorSaw = try await container.persistentStoreCoordinator.perform {
            try background.performAndWait { try background.existingObject(with: id).value(forKey: "name") as? String }
        }
        #expect(coordinatorSaw == "Milk")
        let name = container.viewContext.object(with: id).value(forKey: "name") as? String
        #expect(name == "Milk")
    }

    @Test func aBackgroundTaskMayReturnObjectsAndNeedsNoTryWhenItCannotThrow() async throws {
        // Not `Sendable`, captured by a block that is not `@Sendable`.
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        let count = await container.performBackgroundTask { context in
            (try? context.count(for: request)) ?? -1
        }
        #expect(count == 0)
        // Not `Sendable`: the context's own object comes back, as Core Data lets it.
        let object = try await container.performBackgroundTask { context in
            let item = NSManagedObject(entity: context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["TSPItem"]!, insertInto: context)
            item.setValue("Eggs", forKey: "name")
            try context.save()
            return item
        }
        #expect(!object.objectID.isTemporaryID)
        #expect(try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 1)
    }

    /// From main-actor code, as with Apple's declaration, the block is written `@Sendable`: a
    /// plain one would be isolated to the main actor, which Swift refuses to send to the queue.
    @MainActor @Test func aBackgroundTaskFromTheMainActorTakesASendableBlock() async throws {
        let names = try await container.performBackgroundTask { @Sendable context in
            let item = NSManagedObject(entity: context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["TSPItem"]!, insertInto: context)
            item.setValue("Bread", forKey: "name")
            try context.save()
            return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Bread"])
    }
}
