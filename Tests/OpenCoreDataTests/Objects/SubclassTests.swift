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

/// A subclass as Core Data code often writes one: `init(entity:insertInto:)` overridden with
/// `override` alone (it is not `required` in Core Data), beside a designated initializer of its own.
final class LabelledItem: NSManagedObject {
    private(set) var madeThrough: [String] = []

    override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        madeThrough.append("init(entity:insertInto:)")
    }

    init(name: String, context: NSManagedObjectContext) {
        super.init(entity: NSEntityDescription.entity(forEntityName: "TSPItem", in: context)!, insertInto: context)
        madeThrough.append("init(name:context:)")
        setValue(name, forKey: "name")
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

    /// The framework makes a subclass's objects through its `init(entity:insertInto:)` override,
    /// for inserts and fetches alike.
    @Test func anOverriddenInitializerMakesInsertedAndFetchedObjects() throws {
        let directory = TemporaryDirectory()
        let model = TestModels.todo()
        model.entities[0].managedObjectClassName = String(reflecting: LabelledItem.self)
        let stack = try TestStack(model: model, directory: directory)
        try stack.context.performAndWait {
            let inserted = try #require(NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context) as? LabelledItem)
            #expect(inserted.madeThrough == ["init(entity:insertInto:)"])
            inserted.setValue("inserted", forKey: "name")
            let named = LabelledItem(name: "named", context: stack.context)
            #expect(named.madeThrough == ["init(name:context:)"])
            #expect(named.isInserted)
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let request = NSFetchRequest<LabelledItem>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let items = try again.context.fetch(request)
            #expect(items.map { $0.value(forKey: "name") as? String } == ["inserted", "named"])
            #expect(items.allSatisfy { $0.madeThrough == ["init(entity:insertInto:)"] })
        }
        // `init(context:)` in a child context, and the parent's object for it when the child saves.
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = again.context
        try child.performAndWait {
            let item = LabelledItem(context: child)
            #expect(item.madeThrough == ["init(entity:insertInto:)"])
            item.setValue("child", forKey: "name")
            try child.save()
        }
        again.context.performAndWait {
            let inParent = again.context.insertedObjects.compactMap { $0 as? LabelledItem }
            #expect(inParent.count == 1)
            #expect(inParent.first?.value(forKey: "name") as? String == "child")
            #expect(inParent.first?.madeThrough == ["init(entity:insertInto:)"])
        }
    }
}
