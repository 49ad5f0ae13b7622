import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// Binary attributes that allow external storage, written as Apple's SQLite store writes them
/// (docs/sqlite-format.md §9): a large value in a file of `.<StoreName>_SUPPORT/_EXTERNAL_DATA`
/// named in the column after the tag `0x02`, a small one in the column after `0x01`; a file goes
/// when its value or its object goes, and moves with the store.
@Suite struct ExternalBinaryDataTests {
    static func model() -> NSManagedObjectModel {
        let image = TestModels.attribute("image", .binaryDataAttributeType)
        image.allowsExternalBinaryDataStorage = true
        let photo = TestModels.entity("Photo", [TestModels.attribute("name", .stringAttributeType), image])
        photo.uniquenessConstraints = [["name"]]
        let model = NSManagedObjectModel()
        model.entities = [photo]
        return model
    }

    static let large = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    static let small = Data(repeating: 7, count: 1_000)

    struct Stack {
        let url: URL
        let coordinator: NSPersistentStoreCoordinator
        let context: NSManagedObjectContext

        init(_ url: URL) throws {
            self.url = url
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: ExternalBinaryDataTests.model())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        }

        /// The files of the external data folder.
        var files: [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: SQLiteExternalData.folder(forStoreAt: url).path))?.sorted() ?? []
        }

        /// The image column of the photo `name`, as stored.
        func column(_ name: String) throws -> Data? {
            try DatabaseQueue(path: url.path).read { db in try Data.fetchOne(db, sql: "SELECT ZIMAGE FROM ZPHOTO WHERE ZNAME = ?", arguments: [name]) }
        }

        func photo(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject? {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
            request.predicate = NSPredicate(format: "name == %@", name)
            return try context.fetch(request).first
        }
    }

    @Test func aLargeValueGoesToAFileNamedInItsColumn() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(directory.file("Photos.sqlite"))
        try stack.context.performAndWait {
            ConformanceStack.insert("Photo", ["name": "big", "image": Self.large], into: stack.context)
            ConformanceStack.insert("Photo", ["name": "small", "image": Self.small], into: stack.context)
            try stack.context.save()
        }
        #expect(stack.files.count == 1)
        let file = try #require(stack.files.first)
        #expect(try Data(contentsOf: SQLiteExternalData.folder(forStoreAt: stack.url).appendingPathComponent(file)) == Self.large)
        #expect(directory.url.appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA/\(file)").path
            == SQLiteExternalData.folder(forStoreAt: stack.url).appendingPathComponent(file).path)
        let bigColumn = try #require(try stack.column("big"))
        #expect(bigColumn.first == 2 && SQLiteExternalData.fileName(in: bigColumn) == file)
        #expect(try stack.column("small") == Data([1]) + Self.small)

        let reader = try Stack(stack.url)
        let (big, small) = try reader.context.performAndWait {
            (try reader.photo("big", in: reader.context)?.value(forKey: "image") as? Data,
             try reader.photo("small", in: reader.context)?.value(forKey: "image") as? Data)
        }
        #expect(big == Self.large)
        #expect(small == Self.small)
    }

    @Test func aFileGoesWithItsValueOrItsObjectAndStaysWhenTheValueDoes() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(directory.file("Photos.sqlite"))
        let context = stack.context
        try context.performAndWait {
            let photo = ConformanceStack.insert("Photo", ["name": "big", "image": Self.large], into: context)
            try context.save()
            let first = stack.files
            #expect(first.count == 1)
            // Another attribute changes: the row is rewritten, its file kept.
            photo.setValue("renamed", forKey: "name")
            try context.save()
            #expect(stack.files == first)
            // A new value: a new file, the old one gone.
            var other = Self.large
            other[0] ^= 0xFF
            photo.setValue(other, forKey: "image")
            try context.save()
            #expect(stack.files.count == 1 && stack.files != first)
            // A small value: back in the column, no file.
            photo.setValue(Self.small, forKey: "image")
            try context.save()
            #expect(stack.files.isEmpty)
            photo.setValue(Self.large, forKey: "image")
            try context.save()
            #expect(stack.files.count == 1)
            context.delete(photo)
            try context.save()
            #expect(stack.files.isEmpty)
        }
    }

    /// A save that fails leaves no file behind: the rows that would have named them are not there.
    @Test func aFailedSaveLeavesNoFile() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(directory.file("Photos.sqlite"))
        let context = stack.context
        context.performAndWait {
            ConformanceStack.insert("Photo", ["name": "same", "image": Self.large], into: context)
            ConformanceStack.insert("Photo", ["name": "same", "image": Self.large + Data([1])], into: context)
            #expect(throws: NSError.self) { try context.save() }
        }
        #expect(stack.files.isEmpty)
    }

    @Test func theFilesMoveWithReplaceAndGoWithDestroy() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(directory.file("Photos.sqlite"))
        try stack.context.performAndWait {
            ConformanceStack.insert("Photo", ["name": "big", "image": Self.large], into: stack.context)
            try stack.context.save()
        }
        let copy = directory.file("Copy.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.replacePersistentStore(at: copy, withPersistentStoreFrom: stack.url, type: .sqlite)
        do {
            let reader = try Stack(copy)
            let image = try reader.context.performAndWait { try reader.photo("big", in: reader.context)?.value(forKey: "image") as? Data }
            #expect(image == Self.large)
            #expect(reader.files == stack.files)
            try reader.coordinator.remove(reader.coordinator.persistentStores[0])
        }
        try coordinator.destroyPersistentStore(at: copy, type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(".Copy_SUPPORT").path))
        #expect(stack.files.count == 1, "the original keeps its files")
    }
}
