import Testing
@testable import OpenCoreData

@Suite struct InMemoryStoreTests {
    @Test func savesFetchesSortsAndCountsWithoutAFile() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory, type: .inMemory)
        try stack.context.performAndWait {
            for name in ["b", "c", "a"] {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue(name, forKey: "name")
            }
            try stack.context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
            request.fetchLimit = 2
            let names = try stack.context.fetch(request).map { $0.value(forKey: "name") as? String }
            #expect(names == ["c", "b"])
            #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 3)
        }
        #expect(!FileManager.default.fileExists(atPath: stack.url.path))
        #expect(stack.store.type == NSInMemoryStoreType)
    }
}
