import Foundation
import Testing
@testable import OpenCoreData

/// A SQLite store at `/dev/null` is Core Data's in-memory SQLite store, as Xcode's app templates
/// set up for previews and tests (`description.url = URL(fileURLWithPath: "/dev/null")`).
@Suite struct NullDeviceStoreTests {
    private static let nullDevice = URL(fileURLWithPath: "/dev/null")

    private func container() -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Todo", managedObjectModel: TestModels.todo())
        let description = container.persistentStoreDescriptions.first!
        description.url = Self.nullDevice
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        return container
    }

    @Test func aStoreAtDevNullSavesFetchesAndKeepsHistoryThenKeepsNothing() throws {
        let first = container()
        let store = try #require(first.persistentStoreCoordinator.persistentStores.first)
        #expect(store.url == Self.nullDevice)
        #expect(store.type == NSSQLiteStoreType)
        let context = first.newBackgroundContext()
        try context.performAndWait {
            for index in 0..<3 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("Item \(index)", forKey: "name")
            }
            try context.save()
            context.reset()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 3)
            let history = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            #expect((history?.result as? [NSPersistentHistoryTransaction])?.count == 1)
        }

        // Another container at /dev/null starts empty: nothing was written anywhere it can find.
        let second = container()
        let other = second.newBackgroundContext()
        other.performAndWait {
            #expect((try? other.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))) == 0)
        }

        // Removing the store, and destroying "its file", leave the device as it was.
        let coordinator = first.persistentStoreCoordinator
        try coordinator.remove(store)
        try coordinator.destroyPersistentStore(at: Self.nullDevice, type: .sqlite)
        var attributes = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        #expect(attributes[.type] as? FileAttributeType == .typeCharacterSpecial)
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-wal"))
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-shm"))
        try second.persistentStoreCoordinator.remove(second.persistentStoreCoordinator.persistentStores[0])
        attributes = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        #expect(attributes[.type] as? FileAttributeType == .typeCharacterSpecial)
    }

    @Test func theScratchFileGoesWithTheStore() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: Self.nullDevice)
        let file = try #require((store as? SQLiteStore)?.fileURL)
        #expect(file != Self.nullDevice)
        #expect(FileManager.default.fileExists(atPath: file.path))
        try coordinator.remove(store)
        #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path))
    }
}
