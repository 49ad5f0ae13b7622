import Testing
@testable import OpenCoreData

/// A subclass as a Core Data user writes one on Linux: typed properties over KVC.
final class TodoItem: NSManagedObject {
    var name: String? {
        get { value(forKey: "name") as? String }
        set { setValue(newValue, forKey: "name") }
    }
    var done: Bool {
        get { value(forKey: "done") as? Bool ?? false }
        set { setValue(newValue, forKey: "done") }
    }
    var awakened = false
    override func awakeFromInsert() {
        super.awakeFromInsert()
        awakened = true
        setPrimitiveValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "createdAt")
    }
}

@Suite struct SubclassTests {
    private func model() -> NSManagedObjectModel {
        let model = TestModels.todo()
        model.entities[0].managedObjectClassName = "TodoItem"
        return model
    }

    @Test func initContextFindsTheEntityAndFetchReturnsTheSubclass() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model(), directory: directory)
        try stack.context.performAndWait {
            let item = TodoItem(context: stack.context)
            #expect(item.entity.name == "TSPItem")
            #expect(item.awakened)
            #expect(item.value(forKey: "createdAt") as? Date == Date(timeIntervalSinceReferenceDate: 0))
            item.name = "Typed"
            item.done = true
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let items = try again.context.fetch(NSFetchRequest<TodoItem>(entityName: "TSPItem"))
            #expect(items.count == 1)
            #expect(items[0].name == "Typed")
            #expect(items[0].done)
            #expect(items[0].isFault == false)
        }
    }

    @Test func defaultValuesApplyToNewObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            #expect(item.value(forKey: "done") as? Bool == false)
            #expect(item.value(forKey: "name") == nil)
            #expect(item.changedValues()["done"] != nil)
        }
    }
}
