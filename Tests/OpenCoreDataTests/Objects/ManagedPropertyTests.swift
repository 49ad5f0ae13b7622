import Foundation
import Testing

@testable import OpenCoreData

/// `@NSManaged` properties and to-many accessors link and run on Linux once their accessors are
/// supplied under the compiler's symbols (the ManagedObjectCodegen plugin writes them for this
/// target).
@Suite struct ManagedPropertyTests {
    static func model() -> NSManagedObjectModel {
        let task = TestModels.entity("ManagedTask", [
            TestModels.attribute("title", .stringAttributeType),
            TestModels.attribute("notes", .stringAttributeType, optional: false, defaultValue: ""),
            TestModels.attribute("createdAt", .dateAttributeType),
            TestModels.attribute("dueAt", .dateAttributeType),
            TestModels.attribute("done", .booleanAttributeType, defaultValue: false),
            TestModels.attribute("priority", .integer64AttributeType),
            TestModels.attribute("estimate", .doubleAttributeType),
        ])
        task.managedObjectClassName = String(reflecting: ManagedTask.self)
        let list = TestModels.entity("ManagedList", [TestModels.attribute("name", .stringAttributeType)])
        list.managedObjectClassName = String(reflecting: ManagedList.self)
        TestModels.connect(list, many: "tasks", to: task, inverse: "list")
        let model = NSManagedObjectModel()
        model.entities = [task, list]
        return model
    }

    /// The generated accessors pass the slot the model had at build time. A model changed since
    /// (a property added, the slot taken by another) or a declaration whose type is not the
    /// attribute's must still read and write the right property, converted as KVC converts.
    @Test func accessorsGivenAStaleSlotOrAnotherTypeStillUseTheNamedProperty() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Self.model(), directory: directory)
        try stack.context.performAndWait {
            let task = ManagedTask(context: stack.context)
            let slots = task.entity.properties.map(\.name)
            let doneSlot = try #require(slots.firstIndex(of: "done"))
            task._setManagedValue("Milk" as String?, slot: doneSlot, key: "title")
            task._setManagedValue(Int64(7), slot: 99, key: "priority")
            task._setManagedValue(Int64(2), slot: -1, key: "estimate")
            task._setManagedValue(true, slot: 0, key: "done")
            #expect(task.title == "Milk")
            #expect(task.done)
            #expect(task.priority == 7)
            #expect(task.estimate == 2.0)
            #expect((task._managedValue(slot: doneSlot, key: "title") as String?) == "Milk")
            #expect((task._managedValue(slot: doneSlot, key: "done") as Int64) == 1)
            #expect((task._managedValue(slot: -1, key: "priority") as Double) == 7)
            #expect((task._managedValue(slot: -1, key: "estimate") as String?) == nil)
            #expect(task.value(forKey: "estimate") as? Double == 2.0)
        }
    }

    @Test func typedPropertiesAndAccessorsRoundTripThroughAStore() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Self.model(), directory: directory)
        let created = Date(timeIntervalSinceReferenceDate: 1_000)
        try stack.context.performAndWait {
            let list = ManagedList(context: stack.context)
            list.name = "Groceries"
            let milk = ManagedTask(context: stack.context)
            milk.title = "Milk"
            milk.createdAt = created
            milk.done = true
            milk.priority = Int64.max
            milk.estimate = 2.5
            let eggs = ManagedTask(context: stack.context)
            eggs.title = "Eggs"
            list.addToTasks(milk)
            list.addToTasks(NSSet(array: [eggs]))
            #expect(milk.list === list)
            #expect(list.tasks?.count == 2)
            // Unset, a scalar reads as zero and a required string as its default.
            #expect(eggs.priority == 0)
            #expect(eggs.done == false)
            #expect(eggs.notes == "")
            try stack.context.save()
        }
        let reopened = try stack.reopened()
        try reopened.context.performAndWait {
            let request = NSFetchRequest<ManagedTask>(entityName: "ManagedTask")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
            let tasks = try reopened.context.fetch(request)
            #expect(tasks.map(\.title) == ["Milk", "Eggs"])
            let milk = tasks[0]
            #expect(milk.createdAt == created)
            #expect(milk.done)
            #expect(milk.priority == Int64.max)
            #expect(milk.estimate == 2.5)
            #expect(milk.primitiveTitle == "Milk")
            let list = try #require(milk.list)
            #expect(list.name == "Groceries")
            list.removeFromTasks(milk)
            #expect(milk.list == nil)
            #expect(list.tasks?.count == 1)
            milk.title = nil
            #expect(milk.title == nil)
            #expect(milk.value(forKey: "title") == nil)
        }
    }

    /// A key path to a non-optional property that holds nothing yet (a probe's) still names it:
    /// Apple reads the name without calling the getter, and sorting by it must not stop the program.
    @Test func aKeyPathToANonOptionalPropertyWithoutAValueNamesIt() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Self.model(), directory: directory)
        try stack.context.performAndWait {
            for day in [3.0, 1.0, 2.0] {
                let task = ManagedTask(context: stack.context)
                task.dueAt = Date(timeIntervalSinceReferenceDate: day * 86_400)
            }
            try stack.context.save()
            let sort = NSSortDescriptor(keyPath: \ManagedTask.dueAt, ascending: false)
            #expect(sort.key == "dueAt")
            let request = NSFetchRequest<ManagedTask>(entityName: "ManagedTask")
            request.sortDescriptors = [sort]
            let days = try stack.context.fetch(request).map { $0.dueAt.timeIntervalSinceReferenceDate / 86_400 }
            #expect(days == [3, 2, 1])
        }
    }
}
