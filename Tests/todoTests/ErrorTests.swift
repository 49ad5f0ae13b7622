import Foundation
import GRDB
import OpenCoreData
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every failure is one `Error:` line, status 1, and leaves the store as it was
/// (`TodoSandbox.expectFailure` checks all three).
@Suite struct ErrorTests {
    @Test(arguments: ["check", "uncheck", "delete"])
    func anUnknownIDFailsBeforeAnyItemChanges(command: String) throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a", "b")
        try sandbox.run("check", "2")
        let error = try sandbox.expectFailure(command, "1", "2", "99")
        #expect(error == "Error: No item with id 99 in \(sandbox.store.path) (`todo list` shows the ids).")
    }

    @Test(arguments: ["abc", "0", "1.5", "p1", "x-coredata://whatever/TSPItem/p1"])
    func somethingThatIsNotAnIDIsAnUnknownID(id: String) throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a")
        let error = try sandbox.expectFailure("check", id)
        #expect(error.hasPrefix("Error: No item with id \(id) in "))
    }

    @Test(arguments: ["check", "uncheck", "delete"])
    func changingItemsOfAMissingStoreCreatesNoStore(command: String) throws {
        let sandbox = try TodoSandbox()
        let error = try sandbox.expectFailure(command, "1")
        #expect(error == "Error: There is no store at \(sandbox.store.path) yet: add an item first with `todo add NAME`.")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test(arguments: [["list"], ["add", "x"], ["check", "1"], ["delete", "1"], ["check-all"], ["clear-done"], ["stats"], ["populate", "--count", "5"]])
    func aFileThatIsNotAStoreIsRefusedAndLeftAlone(arguments: [String]) throws {
        let sandbox = try TodoSandbox()
        try Data("groceries: milk, eggs\n".utf8).write(to: sandbox.store)
        let error = try sandbox.expectFailure(arguments)
        #expect(error == "Error: The file at \(sandbox.store.path) is not a Core Data store: it is not a SQLite database.")
        #expect(try Data(contentsOf: sandbox.store) == Data("groceries: milk, eggs\n".utf8))
    }

    @Test(arguments: [["list"], ["add", "x"], ["check", "1"], ["delete", "1"], ["check-all"], ["clear-done"], ["stats"], ["populate", "--count", "5"]])
    func aStoreWrittenWithAnotherModelIsRefusedAndLeftAlone(arguments: [String]) throws {
        let sandbox = try TodoSandbox()
        try Self.makeNotesStore(at: sandbox.store)
        let before = try Data(contentsOf: sandbox.store)
        let error = try sandbox.expectFailure(arguments)
        #expect(try Data(contentsOf: sandbox.store) == before)
        // Every command would migrate the store, as Core Data does (those that only read too,
        // since `todo` migrates stores an earlier release wrote), and finds no version of its
        // model the store was written with.
        #expect(error == "Error: Can't find model for source store at \(sandbox.store.path).")
    }

    @Test(arguments: ["check-all", "clear-done"])
    func batchCommandsOnAMissingStoreCreateNoStore(command: String) throws {
        let sandbox = try TodoSandbox()
        let error = try sandbox.expectFailure(command)
        #expect(error == "Error: There is no store at \(sandbox.store.path) yet: add an item first with `todo add NAME`.")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test(arguments: [["add", "x"], ["populate", "--count", "5"]])
    func aReadOnlyLocationIsAClearError(arguments: [String]) throws {
        let sandbox = try TodoSandbox()
        let folder = try Self.readOnlyFolder(in: sandbox)
        defer { _ = chmod(folder.path, 0o755) }
        let store = folder.appendingPathComponent("Done.sqlite")
        let error = try sandbox.expectFailure(arguments, store: store)
        #expect(error.contains(store.path))
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test func aDefaultFolderThatCannotBeCreatedIsAClearError() throws {
        let sandbox = try TodoSandbox()
        let parent = try Self.readOnlyFolder(in: sandbox)
        defer { _ = chmod(parent.path, 0o755) }
        let result = try sandbox.runTodo(["add", "x"], environment: ["XDG_DATA_HOME": parent.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: Can't create the folder \(parent.appendingPathComponent("todo").path) for the store: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [["check"], ["delete"], ["add"], ["add", " "], ["list", "--limit", "0"], ["list", "--done", "--pending"], ["populate"], ["frobnicate"]])
    func aMisusedCommandIsAUsageErrorAndChangesNothing(arguments: [String]) throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "a")
        let before = try sandbox.snapshot(of: sandbox.store)
        let result = try sandbox.runTodo(arguments + ["--store", sandbox.store.path])
        #expect(result.status == 64)  // EX_USAGE, ArgumentParser's status for a usage error
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("Usage: todo"))
        #expect(try sandbox.snapshot(of: sandbox.store) == before)
    }

    /// A store of another app: a Note entity, one saved note, and no model cache (as stores
    /// written before there was one, or stripped of it). With its cache, Core Data (and `todo`)
    /// would migrate it from the cached model.
    static func makeNotesStore(at url: URL) throws {
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        let note = NSEntityDescription()
        note.name = "Note"
        note.properties = [title]
        let model = NSManagedObjectModel()
        model.entities = [note]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("hello", forKey: "title")
            try context.save()
        }
        try coordinator.remove(store)
        try DatabaseQueue(path: url.path).write { try $0.execute(sql: "DELETE FROM Z_MODELCACHE") }
    }

    /// A folder no file can be created in: a folder without write permission, or, for root, whom
    /// permissions don't stop, /proc, where even root can't create files.
    static func readOnlyFolder(in sandbox: TodoSandbox) throws -> URL {
        if getuid() == 0 { return URL(fileURLWithPath: "/proc") }
        let folder = sandbox.folder.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(chmod(folder.path, 0o555) == 0)
        return folder
    }
}
