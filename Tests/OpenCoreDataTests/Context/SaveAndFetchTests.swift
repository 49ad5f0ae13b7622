import Testing
@testable import OpenCoreData

@Suite struct SaveAndFetchTests {
    @Test func insertSaveReopenAndFetchSorted() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        try stack.context.performAndWait {
            for i in 0..<100 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                item.setValue("Item \(i)", forKey: "name")
                item.setValue(start.addingTimeInterval(Double(100 - i)), forKey: "createdAt")
                item.setValue(i % 3 == 0, forKey: "done")
            }
            #expect(stack.context.insertedObjects.count == 100)
            try stack.context.save()
            #expect(!stack.context.hasChanges)
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
            let items = try again.context.fetch(request)
            #expect(items.count == 100)
            #expect(items.first?.value(forKey: "name") as? String == "Item 99")
            #expect(items.last?.value(forKey: "name") as? String == "Item 0")
            #expect(items.last?.value(forKey: "done") as? Bool == true)
            #expect(items.first?.objectID.isTemporaryID == false)
            #expect(try again.context.count(for: request) == 100)
        }
    }
}
