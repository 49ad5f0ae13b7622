import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// The SQLite store's connections read its file through SQLite's memory-mapped I/O unless the
/// app's pragmas say otherwise, and a mapped file stays safe while another coordinator changes
/// its size.
@Suite struct MemoryMappingTests {
    /// `PRAGMA mmap_size` on the store's writer and on a reader of its pool.
    private func mappedSizes(of store: NSPersistentStore) throws -> (writer: Int?, reader: Int?) {
        let pool = try #require((store as? SQLiteStore)?.pool)
        let writer = try pool.write { try Int.fetchOne($0, sql: "PRAGMA mmap_size") }
        let reader = try pool.read { try Int.fetchOne($0, sql: "PRAGMA mmap_size") }
        return (writer, reader)
    }

    private func fileSize(at url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.size] as? Int)
    }

    private func insertItems(_ count: Int, into context: NSManagedObjectContext) throws {
        try context.performAndWait {
            for index in 0..<count {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context).setValue("Item \(index)", forKey: "name")
            }
            try context.save()
        }
    }

    @Test func connectionsMapTheFileByDefault() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let sizes = try mappedSizes(of: stack.store)
        // Above zero rather than the exact size: SQLite caps it at its build's SQLITE_MAX_MMAP_SIZE.
        #expect((sizes.writer ?? 0) > 0)
        #expect((sizes.reader ?? 0) > 0)
    }

    @Test func theAppsPragmaReplacesTheDefault() throws {
        let directory = TemporaryDirectory()
        let description = NSPersistentStoreDescription(url: directory.file("Todo.sqlite"))
        description.setValue(0 as NSNumber, forPragmaNamed: "mmap_size")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let store = try coordinator.addPersistentStore(
            type: .sqlite, at: directory.file("Todo.sqlite"), options: description.options)
        let sizes = try mappedSizes(of: store)
        #expect(sizes.writer == 0)
        #expect(sizes.reader == 0)
    }

    @Test func aCountAfterTheFileGrewUnderTheReadersMappingSeesEveryRow() throws {
        let directory = TemporaryDirectory()
        let writer = try TestStack(model: TestModels.todo(), directory: directory)
        let reader = try writer.reopened()
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        #expect(try reader.context.performAndWait { try reader.context.count(for: request) } == 0)
        let sizeBefore = try fileSize(at: writer.url)
        try insertItems(5_000, into: writer.context)
        // Removing the writer's store folds its log into the main file, which grows past what
        // the reader mapped: the rows are then read through the mapping, not from the log.
        try writer.coordinator.remove(writer.store)
        #expect(try fileSize(at: writer.url) > sizeBefore)
        #expect(try reader.context.performAndWait { try reader.context.count(for: request) } == 5_000)
    }

    @Test func destroyingAStoreAnotherCoordinatorMapsLeavesThatCoordinatorAnsweringWithErrors() throws {
        let directory = TemporaryDirectory()
        let writer = try TestStack(model: TestModels.todo(), directory: directory)
        try insertItems(5_000, into: writer.context)
        // Removing the store folds its log into the file, which then holds every row.
        try writer.coordinator.remove(writer.store)
        let sizeBefore = try fileSize(at: writer.url)
        let reader = try writer.reopened()
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        #expect(try reader.context.performAndWait { try reader.context.count(for: request) } == 5_000)
        #expect((try mappedSizes(of: reader.store).reader ?? 0) > 0)
        // The destroy shrinks the file the reader's connections have mapped: reading it again
        // must answer (the store's tables are gone), not fault on pages past its end.
        try writer.coordinator.destroyPersistentStore(at: writer.url, type: .sqlite)
        #expect(try fileSize(at: writer.url) < sizeBefore)
        #expect(throws: NSError.self) { try reader.context.performAndWait { try reader.context.count(for: request) } }
    }
}
