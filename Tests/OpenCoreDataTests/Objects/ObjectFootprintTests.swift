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
            for index in 0..<3 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                item.setValue("Item \(index)", forKey: "name")
            }
            try stack.context.save()
            stack.context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.returnsObjectsAsFaults = false
            let items = try stack.context.fetch(request)
            #expect(items.count == 3)
            for item in items {
                // The allocator's usable size of a 112-byte chunk is 104 bytes.
                let usableSize = try #require(Self.usableSize)
                let usable = usableSize(Unmanaged.passUnretained(item).toOpaque())
                #expect(usable <= 104)
                #expect(item.value(forKey: "name") as? String != nil)
                #expect(item.isFault == false)
            }
        }
    }
}
#endif
