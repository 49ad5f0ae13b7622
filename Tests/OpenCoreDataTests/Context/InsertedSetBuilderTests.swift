import Foundation
import Testing
@testable import OpenCoreData

/// The objects-did-change notification's set of inserted objects, built on another thread while
/// they are inserted, lists exactly the event's inserted objects, whatever happened to the list
/// meanwhile.
@Suite struct InsertedSetBuilderTests {
    /// More than two chunks, so that the set is built on the other thread with a tail added at the end.
    private static let count = 2 * SecondThread.minimumCount + 100

    private func insert(_ count: Int, into context: NSManagedObjectContext, named prefix: String) -> [NSManagedObject] {
        (0..<count).map { index in
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            item.setValue("\(prefix) \(index)", forKey: "name")
            return item
        }
    }

    /// The inserted set of each objects-did-change notification `context` posted.
    private func insertedSets(_ recorder: NotificationRecorder) -> [Set<NSManagedObject>] {
        recorder.notifications.compactMap { $0.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> }.filter { !$0.isEmpty }
    }

    /// Whether the notifications listed `expected`, one set each; a failure prints sizes, not
    /// ten thousand objects.
    private func listed(_ recorder: NotificationRecorder, _ expected: [NSManagedObject]...) -> Bool {
        let sets = insertedSets(recorder)
        return sets.count == expected.count && zip(sets, expected).allSatisfy { $0 == Set($1) }
    }

    @Test func aLargeSaveListsEveryNewObjectOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let changes = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: context)
        let saves = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification, object: context)
        let items = try context.performAndWait {
            let items = insert(Self.count, into: context, named: "Item")
            try context.save()
            return items
        }
        #expect(listed(changes, items))
        #expect((saves.notifications.first?.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>).map { $0 == Set(items) } == true)
    }

    /// Runs `body` on a new store's context; what it returns, and a recorder of the
    /// objects-did-change notifications it posted.
    private func recording<T>(_ body: (NSManagedObjectContext) throws -> T) throws -> (T, NotificationRecorder) {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let changes = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: stack.context)
        return (try stack.context.performAndWait { try body(stack.context) }, changes)
    }

    /// New objects deleted before the event ends are not listed: the set built meanwhile holds
    /// them and is not used.
    @Test func newObjectsDeletedBeforeTheEventAreLeftOut() throws {
        let (kept, changes) = try recording { context in
            let items = insert(Self.count, into: context, named: "Item")
            for item in items[10..<15] { context.delete(item) }
            try context.save()
            return Array(items[..<10] + items[15...])
        }
        #expect(listed(changes, kept))
    }

    /// A rollback empties the list; objects inserted afterwards must not be listed with the
    /// rolled-back ones a builder had hashed.
    @Test func objectsRolledBackAreNotListedWithTheNextOnes() throws {
        let ((dropped, second, stored), changes) = try recording { context in
            let dropped = insert(Self.count, into: context, named: "Dropped")
            context.rollback()  // processes the pending changes first: one notification
            let second = insert(Self.count, into: context, named: "Kept")
            try context.save()
            return (dropped, second, try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")))
        }
        #expect(listed(changes, dropped, second))
        #expect(stored == Self.count)
    }

    /// A reset empties the list without an event: objects inserted afterwards must not be listed
    /// with the forgotten ones a builder had hashed.
    @Test func objectsForgottenByAResetAreNotListedWithTheNextOnes() throws {
        let (second, changes) = try recording { context in
            _ = insert(Self.count, into: context, named: "Forgotten")
            context.reset()
            let second = insert(Self.count, into: context, named: "Kept")
            try context.save()
            return second
        }
        #expect(listed(changes, second))
    }

    /// Each event lists its own objects: the second starts where the first ended.
    @Test func twoEventsListTheirOwnObjects() throws {
        let ((first, second), changes) = try recording { context in
            let first = insert(Self.count, into: context, named: "First")
            context.processPendingChanges()
            let second = insert(Self.count, into: context, named: "Second")
            try context.save()
            return (first, second)
        }
        #expect(listed(changes, first, second))
    }

    @Test func theBuilderHashesWhatWasHandedAndTheRest() {
        let entity = TestModels.todo().entitiesByName["TSPItem"]!
        let list = (0..<(SecondThread.minimumCount + 10)).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
        let builder = InsertedSetBuilder(start: 0)
        builder.hand(Array(list[..<SecondThread.minimumCount]))
        #expect(builder.finish(list).map { $0 == Set(list) } == true)

        let twice = InsertedSetBuilder(start: 0)
        twice.hand(list)
        #expect(twice.finish(list + [list[0]]) == nil, "an object listed twice makes the set smaller than the list")
    }
}
