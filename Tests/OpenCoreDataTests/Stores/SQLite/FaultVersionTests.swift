import Testing
@testable import OpenCoreData

/// A fetch without property values reads keys alone: its faults learn their row version (`Z_OPT`)
/// with their values, when they fire, so a change or a delete saves against the row as it was
/// read then, and a change made meanwhile by someone else is still caught.
@Suite struct FaultVersionTests {
    /// One saved item, and a second context on the same store.
    private func twoContexts(_ directory: TemporaryDirectory) throws -> (TestStack, NSManagedObjectContext) {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            item.setValue("original", forKey: "name")
            item.setValue(false, forKey: "done")
            try stack.context.save()
            stack.context.reset()
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        return (stack, other)
    }

    private func faults(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.includesPropertyValues = false
            let objects = try context.fetch(request)
            #expect(objects.allSatisfy { $0.isFault })
            return objects
        }
    }

    private func rename(_ name: String, in context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let item = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).first)
            item.setValue(name, forKey: "name")
            try context.save()
        }
    }

    @Test func aFaultChangedAfterSomeoneElseSavedSavesWithTheVersionItFiredWith() throws {
        let directory = TemporaryDirectory()
        let (stack, other) = try twoContexts(directory)
        let item = try #require(try faults(in: stack.context).first)
        try rename("theirs", in: other)
        try stack.context.performAndWait {
            #expect(item.value(forKey: "name") as? String == "theirs")
            item.setValue(true, forKey: "done")
            try stack.context.save()
        }
        let reader = try stack.reopened()
        try reader.context.performAndWait {
            let stored = try #require(try reader.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).first)
            #expect(stored.value(forKey: "name") as? String == "theirs")
            #expect(stored.value(forKey: "done") as? Bool == true)
            #expect(stored.version == 3)
        }
    }

    @Test func aFaultDeletedUnreadIsDeleted() throws {
        let directory = TemporaryDirectory()
        let (stack, other) = try twoContexts(directory)
        let item = try #require(try faults(in: stack.context).first)
        try rename("theirs", in: other)
        try stack.context.performAndWait {
            stack.context.delete(item)
            try stack.context.save()
        }
        let reader = try stack.reopened()
        let left = try reader.context.performAndWait { try reader.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
        #expect(left == 0)
    }

    @Test func aChangeMadeAfterTheFaultFiredIsStillAConflict() throws {
        let directory = TemporaryDirectory()
        let (stack, other) = try twoContexts(directory)
        let item = try #require(try faults(in: stack.context).first)
        stack.context.performAndWait { _ = item.value(forKey: "name") }
        try rename("theirs", in: other)
        stack.context.performAndWait { item.setValue(true, forKey: "done") }
        #expect(stack.context.saveError()?.code == NSManagedObjectMergeError)
    }
}
