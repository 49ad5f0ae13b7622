import Testing
@testable import OpenCoreData

@Suite struct ChangeStreamTests {
    @Test func changesArriveAsAnAsyncSequence() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let stream = stack.context.changes()
        let id = try await stack.context.perform {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            try stack.context.save()
            item.setValue("edited", forKey: "name")
            stack.context.processPendingChanges()
            return item.objectID
        }
        var seen: [NSManagedObjectContextChanges] = []
        for await change in stream {
            seen.append(change)
            if change.updated.contains(id) && !change.saved { break }
        }
        #expect(seen.contains { $0.saved && $0.inserted.count == 1 })
        #expect(seen.last?.updated == [id])
    }
}
