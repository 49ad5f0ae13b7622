import Testing
@testable import OpenCoreData

/// Batches of a `fetchBatchSize` fetch fill with the right rows whatever shape their keys take:
/// consecutive, ascending with gaps (deleted rows, read by a range scan), or in sort order (read
/// by key list).
@Suite struct BatchFaultingTests {
    /// 3,000 items "Item 0"…, then every third deleted and a run of 400 deleted.
    private func store(_ directory: TemporaryDirectory) throws -> (TestStack, [String]) {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let kept = try context.performAndWait {
            var items: [NSManagedObject] = []
            for index in 0..<3_000 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("Item \(index)", forKey: "name")
                items.append(item)
            }
            try context.save()
            var kept: [String] = []
            for (index, item) in items.enumerated() {
                if index % 3 == 2 || (1_000..<1_400).contains(index) { context.delete(item) } else { kept.append("Item \(index)") }
            }
            try context.save()
            context.reset()
            return kept
        }
        return (stack, kept)
    }

    private func names(_ stack: TestStack, sortedByName: Bool) throws -> [String] {
        let context = stack.context
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.fetchBatchSize = 100
            if sortedByName { request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)] }
            return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
        }
    }

    @Test func unsortedBatchesWithGapsReadTheirOwnRows() throws {
        let directory = TemporaryDirectory()
        let (stack, kept) = try store(directory)
        #expect(try names(stack, sortedByName: false) == kept)
    }

    /// Rows a predicate left out lie inside the batches' key ranges: reading a batch must not
    /// register them.
    @Test func filteredBatchesRegisterOnlyTheirObjects() throws {
        let directory = TemporaryDirectory()
        let (stack, kept) = try store(directory)
        let context = stack.context
        let (names, registered) = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.fetchBatchSize = 100
            request.predicate = NSPredicate(format: "NOT (name ENDSWITH '5')")
            let objects = try context.fetch(request)
            let names = objects.map { $0.value(forKey: "name") as? String ?? "?" }
            return withExtendedLifetime(objects) { (names, context.registeredObjects.count) }
        }
        let expected = kept.filter { !$0.hasSuffix("5") }
        #expect(names == expected)
        #expect(registered == expected.count)
    }

    @Test func sortedBatchesReadTheirOwnRows() throws {
        let directory = TemporaryDirectory()
        let (stack, kept) = try store(directory)
        #expect(try names(stack, sortedByName: true) == kept.sorted(by: >))
    }
}
