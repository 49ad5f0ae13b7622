import Foundation
import Testing

@testable import OpenCoreData

/// `batchedFetch(_:)`: the objects of a fetch made a batch at a time as they are read, and those
/// of passed batches released, so that reading a million rows never holds a million objects.
@Suite struct BatchedFetchResultTests {
    private static let itemCount = 2_500

    /// A context on a store of `itemCount` saved items ("Item 0"…, one second apart, every
    /// other one done), holding none of them.
    private func savedItems(_ directory: TemporaryDirectory) throws -> TestStack {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(Self.itemCount, in: stack.context)
        stack.context.performAndWait { stack.context.reset() }
        return stack
    }

    private func request(batchSize: Int) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.fetchBatchSize = batchSize
        return request
    }

    @Test func objectsOfPassedBatchesAreReleasedWhileIterating() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            let result = try context.batchedFetch(request(batchSize: 100))
            #expect(result.count == Self.itemCount)
            #expect(context.registry.count == 0, "no object is made before its batch is read")
            weak var firstOfFirstBatch: NSManagedObject?
            weak var lastOfFirstBatch: NSManagedObject?
            var names: [String] = []
            var mostRegistered = 0
            for (index, item) in result.enumerated() {
                if index == 0 { firstOfFirstBatch = item }
                if index == 99 { lastOfFirstBatch = item }
                names.append(item.value(forKey: "name") as? String ?? "?")
                mostRegistered = max(mostRegistered, context.registry.count)
                if index == 150 {
                    #expect(firstOfFirstBatch != nil, "the last two batches are held")
                }
                if index == 250 {
                    #expect(firstOfFirstBatch == nil && lastOfFirstBatch == nil, "batch 0 went once batch 2 was read")
                }
            }
            #expect(names == (0..<Self.itemCount).map { "Item \($0)" })
            #expect(mostRegistered <= 300, "at most three batches registered at a time, not \(mostRegistered)")
        }
    }

    @Test func heldAndChangedObjectsStayAndComeBackAsTheSameObjects() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            let result = try context.batchedFetch(request(batchSize: 100))
            let held = result[5]
            weak var changed: NSManagedObject?
            do {
                let object = result[7]
                object.setValue("edited", forKey: "name")
                changed = object
            }
            for item in result { _ = item.value(forKey: "done") }
            #expect(changed != nil, "an object with unsaved changes is not released")
            #expect(result[5] === held && result[7] === changed)
            #expect(result[7].value(forKey: "name") as? String == "edited")
            #expect(result[8].value(forKey: "name") as? String == "Item 8", "a released batch is read again")
        }
    }

    @Test func sortPredicateOffsetAndLimitSelectWhatFetchSelects() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            let request = request(batchSize: 64)
            request.predicate = NSPredicate(format: "done == YES AND name CONTAINS '1'")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
            request.fetchOffset = 10
            request.fetchLimit = 500
            let expected = try context.fetch(request).map { $0.value(forKey: "name") as? String }
            context.reset()
            let result = try context.batchedFetch(request)
            #expect(!expected.isEmpty && result.map { $0.value(forKey: "name") as? String } == expected)
            // Backwards, across batches: each read again where released.
            #expect(result.reversed().map { $0.value(forKey: "name") as? String } == expected.reversed())
        }
    }

    @Test func unsavedChangesAreIncludedAsFetchIncludesThem() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            let inserted = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            inserted.setValue("Item new", forKey: "name")
            let request = request(batchSize: 100)
            request.predicate = NSPredicate(format: "name BEGINSWITH 'Item 24' OR name == 'Item new'")
            let result = try context.batchedFetch(request)
            #expect(result.count == 112)
            #expect(result.contains { $0 === inserted })
        }
    }

    /// Rows deleted by another coordinator after the keys were read: their objects are faults
    /// that read as deleted, the others come with their values, and nothing stops the program.
    @Test func rowsDeletedAfterTheKeysWereReadBecomeInaccessibleFaults() throws {
        let directory = TemporaryDirectory()
        let stack = try savedItems(directory)
        let context = stack.context
        let result = try context.performAndWait { try context.batchedFetch(request(batchSize: 100)) }
        let other = try stack.reopened()
        try other.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "name IN %@", ["Item 3", "Item 2400"])
            for object in try other.context.fetch(request) { other.context.delete(object) }
            try other.context.save()
        }
        context.performAndWait {
            #expect(result.count == Self.itemCount)
            let names = result.map { $0.value(forKey: "name") as? String }
            #expect(names[2] == "Item 2" && names[3] == nil && names[4] == "Item 4")
            #expect(names[2400] == nil && names[2401] == "Item 2401")
            #expect(result[3].objectID.uriRepresentation().lastPathComponent == "p4")
        }
    }

    @Test func requestsForOtherResultTypesAreRefused() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        context.performAndWait {
            let request = request(batchSize: 10)
            request.resultType = .managedObjectIDResultType
            #expect(throws: (any Error).self) { try context.batchedFetch(request) }
            do {
                _ = try context.batchedFetch(request)
            } catch {
                #expect((error as NSError).code == NSCoreDataError)
            }
        }
    }
}
