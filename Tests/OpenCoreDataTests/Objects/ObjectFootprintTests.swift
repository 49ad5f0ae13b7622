import Foundation
import Testing
@testable import OpenCoreData

#if canImport(Glibc)
import Glibc

/// A fetched object's own allocation stays small: a million fetched objects are a million of
/// these (docs/performance.md, "What remains").
@Suite struct ObjectFootprintTests {
    /// glibc's `malloc_usable_size`, which Swift's Glibc module does not import.
    static let usableSize: (@convention(c) (UnsafeMutableRawPointer?) -> Int)? = {
        guard let symbol = dlsym(nil, "malloc_usable_size") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
    }()

    @Test func aFetchedObjectIsOneAllocationOf112Bytes() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            for index in 0..<20 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                item.setValue("Item \(index)", forKey: "name")
            }
            try stack.context.save()
            stack.context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.returnsObjectsAsFaults = false
            let items = try stack.context.fetch(request)
            #expect(items.count == 20)
            // The allocator's usable size of a 112-byte chunk is 104 bytes. A chunk cut from a
            // larger free one can be bigger than asked for, so the smallest of several counts.
            let usableSize = try #require(Self.usableSize)
            #expect(items.map { usableSize(Unmanaged.passUnretained($0).toOpaque()) }.min()! <= 104)
            for item in items {
                #expect(item.value(forKey: "name") as? String != nil)
                #expect(item.isFault == false)
            }
        }
    }

    @Test func anObjectIDIsOneAllocationOf48Bytes() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let items = (0..<20).map { _ in NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context) }
            let temporaries = items.map(\.objectID)
            let temporary = temporaries[0]
            try stack.context.save()
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem")
            request.resultType = .managedObjectIDResultType
            let fetchedIDs = try stack.context.fetch(request)
            let item = try #require(items.first { $0.objectID == fetchedIDs.first })
            let fetched = fetchedIDs[0]
            // The allocator's usable size of a 48-byte chunk is 40 bytes; the smallest of several
            // counts (a chunk cut from a larger free one can be bigger than asked for).
            let usableSize = try #require(Self.usableSize)
            for ids in [temporaries, fetchedIDs] {
                #expect(ids.map { usableSize(Unmanaged.passUnretained($0).toOpaque()) }.min()! <= 40)
            }
            #expect(temporary.isTemporaryID && !fetched.isTemporaryID)
            #expect(fetched == item.objectID && fetched.hash == item.objectID.hash)
            #expect(fetched.persistentStore === stack.store && temporary.persistentStore == nil)
        }
    }
}
#endif
