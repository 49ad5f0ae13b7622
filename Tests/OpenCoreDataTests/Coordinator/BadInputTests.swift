import Testing
@testable import OpenCoreData

@Suite struct BadInputTests {
    private func contents(_ url: URL) -> Data? { try? Data(contentsOf: url) }

    @Test func aFileThatIsNotSQLiteIsRefusedWith259AndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        try Data("just some text, not a database".utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("notes.sqlite"))
        #expect(contents(url) == Data("just some text, not a database".utf8))
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func aTruncatedStoreIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            for i in 0..<2000 {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("Item \(i)", forKey: "name")
            }
            try stack.context.save()
        }
        try stack.coordinator.remove(stack.store)
        let whole = try #require(contents(stack.url))
        let truncated = directory.file("truncated.sqlite")
        try whole.prefix(whole.count / 3).write(to: truncated)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: truncated) }
        #expect(error.code == NSFileReadCorruptFileError || error.code == NSSQLiteError)
        #expect(contents(truncated) == whole.prefix(whole.count / 3))
    }

    @Test func aStoreWrittenWithAnotherModelFailsWith134100AndIsNotModified() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("kept", forKey: "name")
            try stack.context.save()
        }
        try stack.coordinator.remove(stack.store)
        let before = try StoreSnapshot.rows(of: stack.url)
        let other = NSPersistentStoreCoordinator(managedObjectModel: TestModels.library())
        let error = try #require(throws: NSError.self) { try other.addPersistentStore(type: .sqlite, at: stack.url) }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error.userInfo["metadata"] is [String: Any])
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
    }

    @Test func aMissingOrUnwritableFolderIsAClearError() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let missing = directory.url.appendingPathComponent("no/such/folder/Store.sqlite")
        let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: missing) }
        #expect(error.code == NSFileNoSuchFileError)
        #expect(error.localizedDescription.contains("folder"))

        let locked = directory.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        // root ignores permissions; the check only means something for other users.
        if !FileManager.default.isWritableFile(atPath: locked.path) {
            let denied = try #require(throws: NSError.self) {
                try coordinator.addPersistentStore(type: .sqlite, at: locked.appendingPathComponent("Store.sqlite"))
            }
            #expect(denied.code == NSFileWriteNoPermissionError)
        }
    }

    @Test func unknownStoreTypeAndUnknownEntityAreNamedInTheError() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let typeError = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: "Binary", configurationName: nil, at: directory.file("x"))
        }
        #expect(typeError.code == NSPersistentStoreInvalidTypeError)
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let error = try #require(throws: NSError.self) {
                try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Nope"))
            }
            #expect(error.localizedDescription.contains("Nope"))
        }
    }

    @Test func aForeignSQLiteDatabaseIsRefused() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("foreign.sqlite")
        let queue = try GRDBQueue.make(url)
        try queue.write { try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        try queue.close()
        let before = try StoreSnapshot.rows(of: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("not a Core Data store"))
        #expect(try StoreSnapshot.rows(of: url) == before)
    }
}

import GRDB

enum GRDBQueue {
    static func make(_ url: URL) throws -> DatabaseQueue { try DatabaseQueue(path: url.path) }
}
