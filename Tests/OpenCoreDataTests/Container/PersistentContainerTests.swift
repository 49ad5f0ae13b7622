import Foundation
import Testing
@testable import OpenCoreData

@Suite struct PersistentContainerTests {
    @Test func loadsItsStoreAndSavesThroughABackgroundContext() async throws {
        let directory = TemporaryDirectory()
        let container = NSPersistentContainer(name: "Todo", managedObjectModel: TestModels.todo())
        #expect(container.persistentStoreDescriptions.first?.url?.lastPathComponent == "Todo.sqlite")
        #expect(container.persistentStoreDescriptions.first?.type == NSSQLiteStoreType)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.file("Todo.sqlite"))]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)

        let saved = try await container.performBackgroundTask { context in
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            item.setValue("from the background", forKey: "name")
            try context.save()
            return item.objectID
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let item = try context.existingObject(with: saved)
            #expect(item.value(forKey: "name") as? String == "from the background")
        }
    }

    /// `viewContext` was a lazy var: two threads asking first could each make a context, and the
    /// app's objects would then live in two main-queue contexts.
    @Test func threadsAskingForTheViewContextAtOnceAllGetTheSameContext() throws {
        for _ in 0..<20 {
            let container = NSPersistentContainer(name: "Todo", managedObjectModel: TestModels.todo())
            let contexts = Locked<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: 16) { _ in
                let context = container.viewContext
                contexts.withLock { $0.append(ObjectIdentifier(context)) }
            }
            #expect(contexts.withLock { $0.count } == 16)
            #expect(Set(contexts.withLock { $0 }).count == 1)
            #expect(container.viewContext.concurrencyType == .mainQueueConcurrencyType)
            #expect(container.viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
        }
    }

    @Test func aStoreThatCannotLoadIsReportedToTheCompletionHandler() throws {
        let directory = TemporaryDirectory()
        let bad = directory.file("bad.sqlite")
        try Data("garbage".utf8).write(to: bad)
        let container = NSPersistentContainer(name: "Todo", managedObjectModel: TestModels.todo())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: bad)]
        var reported: NSError?
        container.loadPersistentStores { description, error in
            #expect(description.url == bad)
            reported = error as NSError?
        }
        #expect(reported?.code == NSFileReadCorruptFileError)
    }

    @Test func defaultDirectoryIsXDGDataHomeOrLocalShare() {
        let url = NSPersistentContainer.defaultDirectoryURL()
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !xdg.isEmpty {
            #expect(url.path == xdg)
        } else if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty {
            #expect(url.path == URL(fileURLWithPath: home).appendingPathComponent(".local/share").path)
        } else {
            #expect(url.path.hasSuffix("/.local/share"))
        }
    }

    /// An app's bundle holds the compiled model (`.momd`) rather than Xcode's source: the
    /// container finds either, the source first.
    @Test func theContainerFindsACompiledModelByNameAndPrefersTheSource() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.copyItem(
            at: Fixtures.url("SampleModel/Fixtures/SampleModel.momd"), to: directory.file("Sample.momd"))
        let found = try #require(NSPersistentContainer.model(named: "Sample", in: [directory.url]))
        #expect(found.lastPathComponent == "Sample.momd")
        let model = try #require(NSManagedObjectModel(contentsOf: found))
        #expect(model.entitiesByName["Car"] != nil)
        #expect(NSPersistentContainer.model(named: "Other", in: [directory.url]) == nil)

        try FileManager.default.createDirectory(at: directory.file("Sample.xcdatamodeld"), withIntermediateDirectories: false)
        #expect(NSPersistentContainer.model(named: "Sample", in: [directory.url])?.lastPathComponent == "Sample.xcdatamodeld")
    }
}
