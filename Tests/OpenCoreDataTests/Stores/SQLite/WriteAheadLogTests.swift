import Foundation
import Testing

@testable import OpenCoreData

/// A store removed from its coordinator is one self-contained file, as Core Data leaves it: no
/// `-wal` or `-shm` beside it, and not a byte changed when nothing was saved (GRDB logged a no-op
/// transaction on every open, which rewrote the file's header once folded in).
@Suite struct WriteAheadLogTests {
    func sidecars(_ url: URL) -> [String] {
        ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
    }

    func addItem(_ stack: TestStack, _ name: String) throws {
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue(name, forKey: "name")
            try stack.context.save()
        }
    }

    @Test(arguments: [false, true])
    func openingAndRemovingWithoutSavingChangesNoByte(readOnly: Bool) throws {
        let folder = TemporaryDirectory()
        let url = folder.file("Test.sqlite")
        let first = try TestStack(model: TestModels.todo(), directory: folder)
        try addItem(first, "milk")
        try first.coordinator.remove(first.store)
        #expect(sidecars(url) == [])
        let bytes = try Data(contentsOf: url)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let store = try coordinator.addPersistentStore(
            type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: readOnly])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) } == 1)
        try coordinator.remove(store)
        #expect(sidecars(url) == [])
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// The log is folded in and deleted only by the last connection: a coordinator removed while
    /// another still has the store open leaves that one's log alone, and nothing is lost.
    @Test func anotherOpenCoordinatorKeepsItsLog() throws {
        let folder = TemporaryDirectory()
        let first = try TestStack(model: TestModels.todo(), directory: folder)
        try addItem(first, "milk")
        let second = try first.reopened()
        try addItem(second, "eggs")
        try second.coordinator.remove(second.store)
        try addItem(first, "bread")
        #expect(sidecars(first.url) == ["-wal", "-shm"])
        try first.coordinator.remove(first.store)
        #expect(sidecars(first.url) == [])
        let reopened = try TestStack(model: TestModels.todo(), directory: folder)
        let names = try reopened.context.performAndWait {
            try reopened.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names.sorted() == ["bread", "eggs", "milk"])
    }

    /// A store whose log was being folded in when its process was killed opens from the log:
    /// a checkpoint grows the file before it writes the pages, so the file may be zeros where
    /// its header goes while the log holds every page. Zeros without a log, or beside a log
    /// that does not hold the first page, stay refused, neither file changed.
    @Test func aStoreKilledWhileFoldingItsLogInOpensFromTheLog() throws {
        let folder = TemporaryDirectory()
        let first = try TestStack(model: TestModels.todo(), directory: folder)
        try addItem(first, "milk")
        try addItem(first, "eggs")
        // The files as the kill leaves them, copied while the store is open (nothing folded in
        // yet): the log as written, the file grown to its size with nothing written.
        let killed = folder.file("Killed.sqlite")
        try FileManager.default.copyItem(atPath: first.url.path + "-wal", toPath: killed.path + "-wal")
        let size = (try FileManager.default.attributesOfItem(atPath: first.url.path)[.size] as? NSNumber)?.intValue ?? 0
        try Data(count: max(size, 4096)).write(to: killed)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: killed)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let names = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names.sorted() == ["eggs", "milk"])
        try coordinator.remove(store)

        // Beside the zeros: no log; a log of its header alone (no frame); a log of other bytes.
        let log = try Data(contentsOf: URL(fileURLWithPath: first.url.path + "-wal"))
        for (name, beside) in [("Zeros", nil), ("Headless", log.prefix(32)), ("Junk", Data(repeating: 0xAB, count: 8192))] as [(String, Data?)] {
            let zeros = folder.file("\(name).sqlite")
            try Data(count: 4096).write(to: zeros)
            if let beside { try beside.write(to: URL(fileURLWithPath: zeros.path + "-wal")) }
            let refusing = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
            #expect(performing: { try refusing.addPersistentStore(type: .sqlite, at: zeros) }, throws: { ($0 as NSError).code == NSFileReadCorruptFileError })
            #expect(try Data(contentsOf: zeros) == Data(count: 4096), "\(name)")
            if let beside { #expect(try Data(contentsOf: URL(fileURLWithPath: zeros.path + "-wal")) == beside, "\(name)") }
        }
    }

    /// The log header written before a pool opens holds the format's fields in its order
    /// (sqlite.org/fileformat2.html): magic for big-endian checksums, page size, salts.
    @Test func theEmptyLogHeaderHoldsTheFormatsFields() throws {
        let header = SQLiteWriteAheadLog.emptyLogHeader(pageSize: 4096, salts: (0x1234_5678, 0x9ABC_DEF0))
        #expect(header.count == 32)
        #expect(Array(header[0..<4]) == [0x37, 0x7F, 0x06, 0x83])
        #expect(Array(header[8..<12]) == [0, 0, 0x10, 0])
        #expect(Array(header[16..<24]) == [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0])
    }
}
