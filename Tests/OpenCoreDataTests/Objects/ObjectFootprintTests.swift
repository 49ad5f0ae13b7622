import Foundation
import Testing
@testable import OpenCoreData

#if canImport(Glibc)
import Glibc

/// A fetched object's own allocation stays small: a million fetched objects are a million of
/// these (docs/performance.md, "What remains").
@Suite struct ObjectFootprintTests {
    /// The bytes `swift_allocObject` asks the allocator for an instance of `type`: the
    /// `InstanceSize` field of its class metadata (offset 24 where there is no Objective-C
    /// interoperability: kind, superclass, flags, instance address point, instance size).
    ///
    /// The class's own figure, not the allocator's `malloc_usable_size` of a live object: the
    /// allocator may hand out a larger free chunk than asked for (all twenty IDs came back in
    /// 64-byte chunks once in CI while other suites churned the heap), so only this is stable.
    static func instanceSize(of type: AnyClass) -> Int {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        return Int(metadata.load(fromByteOffset: 24, as: UInt32.self))
    }

    /// The chunk glibc's malloc cuts for a request of `size` bytes: eight bytes of header,
    /// rounded up to sixteen, never under thirty-two.
    static func chunkSize(forRequest size: Int) -> Int {
        max(32, (size + 8 + 15) & ~15)
    }

    @Test func aFetchedObjectIsOneAllocationOf64Bytes() throws {
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
            let size = Self.instanceSize(of: type(of: items[0]))
            #expect(size >= 16, "a Swift object has at least its 16-byte header")
            #expect(Self.chunkSize(forRequest: size) <= 64)
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
            let size = Self.instanceSize(of: type(of: fetched))
            #expect(size >= 16, "a Swift object has at least its 16-byte header")
            #expect(Self.chunkSize(forRequest: size) <= 48)
            #expect(type(of: temporary) == type(of: fetched), "temporary and permanent IDs are one class")
            #expect(temporary.isTemporaryID && !fetched.isTemporaryID)
            #expect(fetched == item.objectID && fetched.hash == item.objectID.hash)
            #expect(fetched.persistentStore === stack.store && temporary.persistentStore == nil)
        }
    }
}
#endif
