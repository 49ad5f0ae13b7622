import Testing
@testable import OpenCoreData

/// The tutorials' data set: 100,000 TSPItems inserted in one context, saved once, read back sorted
/// through a fresh coordinator.
@Suite struct TodoRoundTripTests {
    @Test func hundredThousandItemsRoundTrip() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let count = 100_000
        let start = Date(timeIntervalSinceReferenceDate: 780_000_000)
        // createdAt descends with i, so sorting by it reverses insertion order.
        func createdAt(_ i: Int) -> Date { start.addingTimeInterval(Double(count - i) * 315.36) }
        try stack.context.performAndWait {
            for i in 0..<count {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                item.setValue("Item \(i)", forKey: "name")
                item.setValue(createdAt(i), forKey: "createdAt")
                item.setValue(i % 7 == 0, forKey: "done")
            }
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
            let items = try again.context.fetch(request)
            #expect(items.count == count)
            var mismatches = 0
            for (position, item) in items.enumerated() {
                let i = count - 1 - position
                if item.value(forKey: "name") as? String != "Item \(i)"
                    || item.value(forKey: "createdAt") as? Date != createdAt(i)
                    || item.value(forKey: "done") as? Bool != (i % 7 == 0)
                {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0)
        }
    }
}
