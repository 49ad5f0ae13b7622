import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// `destroyPersistentStore`, `replacePersistentStore` and `migratePersistentStore` with the file
/// semantics Apple documents, and a SQLite file with nothing in it taken as a new store.
@Suite struct StoreFileTests {
    /// A coordinator with a SQLite store at `name` in `directory`, holding items named `names`.
    private func store(_ name: String, in directory: TemporaryDirectory, names: [String]) throws -> TestStack {
        let stack = try TestStack(model: TestModels.todo(), directory: directory, name: name)
        try stack.context.performAndWait {
            for name in names {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue(name, forKey: "name")
            }
            try stack.context.save()
        }
        return stack
    }

    /// The item names in the store at `url`, read by a coordinator of its own.
    private func names(at url: URL) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    @Test func destroyingALoadedStoreRemovesItAndLeavesAFileThatOpensEmpty() throws {
        let directory = TemporaryDirectory()
        let stack = try store("Todo.sqlite", in: directory, names: ["milk", "eggs"])
        try stack.coordinator.destroyPersistentStore(at: stack.url, type: .sqlite)
        #expect(stack.coordinator.persistentStores.isEmpty)
        #expect(FileManager.default.fileExists(atPath: stack.url.path))
        #expect(try names(at: stack.url) == [])
    }

    @Test func aDestroyedStoreCanBeCreatedAgainWithAnotherModel() throws {
        let directory = TemporaryDirectory()
        let stack = try store("Todo.sqlite", in: directory, names: ["milk"])
        try stack.coordinator.destroyPersistentStore(at: stack.url, type: .sqlite)
        let other = NSPersistentStoreCoordinator(managedObjectModel: TestModels.library())
        #expect(throws: Never.self) { try other.addPersistentStore(type: .sqlite, at: stack.url) }
    }

    @Test func destroyingNothingIsNotAnError() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try coordinator.destroyPersistentStore(at: directory.file("None.sqlite"), type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: directory.file("None.sqlite").path))
    }

    @Test func anUnknownStoreTypeIsRefused() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let error = #expect(throws: NSError.self) {
            try coordinator.destroyPersistentStore(at: directory.file("x.sqlite"), type: NSPersistentStore.StoreType(rawValue: "Cloud"))
        }
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
    }

    /// An empty SQLite file (a process killed while it created the store, or a destroyed store)
    /// is a new store, not "no Core Data metadata" until the user deletes it by hand.
    @Test func anEmptySQLiteDatabaseIsTakenAsANewStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Empty.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "DROP TABLE t")
        }
        try queue.close()
        #expect(SQLiteFileCheck.hasContent(atPath: url.path))
        let stack = try TestStack(model: TestModels.todo(), directory: directory, name: "Empty.sqlite")
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("milk", forKey: "name")
            try stack.context.save()
        }
        #expect(try names(at: url) == ["milk"])
    }

    @Test func replacingCopiesTheSourceOverTheLoadedDestination() throws {
        let directory = TemporaryDirectory()
        let source = try store("Source.sqlite", in: directory, names: ["milk", "eggs"])
        let destination = try store("Destination.sqlite", in: directory, names: ["old"])
        try destination.coordinator.replacePersistentStore(
            at: destination.url, destinationOptions: nil, withPersistentStoreFrom: source.url, sourceOptions: nil, type: .sqlite)
        #expect(destination.coordinator.persistentStores.isEmpty)
        #expect(try names(at: destination.url) == ["eggs", "milk"])
        // The source is untouched and still open in its own coordinator.
        #expect(source.coordinator.persistentStores.count == 1)
        #expect(try source.context.performAndWait { try source.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) } == 2)
    }

    @Test func replacingCreatesAMissingDestinationAndIgnoresItself() throws {
        let directory = TemporaryDirectory()
        let source = try store("Source.sqlite", in: directory, names: ["milk"])
        let copy = directory.file("Copy.sqlite")
        try source.coordinator.replacePersistentStore(at: copy, withPersistentStoreFrom: source.url, type: .sqlite)
        #expect(try names(at: copy) == ["milk"])
        try source.coordinator.replacePersistentStore(at: source.url, withPersistentStoreFrom: source.url, type: .sqlite)
        #expect(source.coordinator.persistentStores.count == 1)
    }

    @Test func replacingFromNothingOrFromAForeignFileFailsAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let destination = try store("Destination.sqlite", in: directory, names: ["old"])
        let other = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let missing = #expect(throws: NSError.self) {
            try other.replacePersistentStore(at: destination.url, withPersistentStoreFrom: directory.file("None.sqlite"), type: .sqlite)
        }
        #expect(missing?.code == NSFileReadNoSuchFileError)
        let text = directory.file("notes.txt")
        try Data("not a store".utf8).write(to: text)
        let foreign = #expect(throws: NSError.self) {
            try other.replacePersistentStore(at: destination.url, withPersistentStoreFrom: text, type: .sqlite)
        }
        #expect(foreign?.code == NSFileReadCorruptFileError)
        #expect(try names(at: destination.url) == ["old"])
    }

    @Test func migratingMovesTheStoreToANewFileWithANewUUID() throws {
        let directory = TemporaryDirectory()
        let stack = try store("Todo.sqlite", in: directory, names: ["milk", "eggs"])
        let old = stack.store
        let received = Locked<[Any]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreCoordinatorStoresDidChange, object: stack.coordinator, queue: nil
        ) { note in
            if let changed = note.userInfo?[NSUUIDChangedPersistentStoresKey] as? [Any] { received.withLock { $0 = changed } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let newURL = directory.file("Moved.sqlite")
        let moved = try stack.coordinator.migratePersistentStore(old, to: newURL, options: nil, type: .sqlite)
        #expect(stack.coordinator.persistentStores.count == 1)
        #expect(stack.coordinator.persistentStores.first === moved)
        #expect(moved.url == newURL)
        #expect(moved.identifier != old.identifier)
        let names = try stack.context.performAndWait {
            try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(names == ["eggs", "milk"])
        #expect(try self.names(at: stack.url) == ["eggs", "milk"])

        let changed = received.withLock { $0 }
        #expect(changed.count == 3)
        #expect((changed.first as AnyObject?) === old)
        #expect((changed.dropFirst().first as AnyObject?) === moved)
        let ids = changed.last as? [NSManagedObjectID] ?? []
        #expect(ids.count == 4)
        #expect(ids.count == 4 && ids[1].persistentStore === moved && ids[0].uriRepresentation().lastPathComponent == ids[1].uriRepresentation().lastPathComponent)
    }

    @Test func migratingOntoAnExistingFileFailsAndKeepsTheStore() throws {
        let directory = TemporaryDirectory()
        let stack = try store("Todo.sqlite", in: directory, names: ["milk"])
        let taken = try store("Taken.sqlite", in: directory, names: ["other"])
        let error = #expect(throws: NSError.self) {
            try stack.coordinator.migratePersistentStore(stack.store, to: taken.url, options: nil, type: .sqlite)
        }
        #expect(error?.code == NSPersistentStoreOperationError)
        #expect(stack.coordinator.persistentStores.first === stack.store)
        #expect(try names(at: taken.url) == ["other"])
    }
}
