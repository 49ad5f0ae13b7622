import Foundation
import Testing
@testable import OpenCoreData

/// A large save makes its new objects' permanent IDs on another thread while the rows are written
/// (`PermanentIDs`): the objects, the did-save notification and the store must agree on them as
/// they do after a small save, and a save that fails must leave the objects' IDs temporary.
@Suite struct PermanentIDsTests {
    /// Enough new objects for the IDs to be made on the other thread.
    static let count = SecondThread.minimumCount + 904

    private func insertItems(_ count: Int, into context: NSManagedObjectContext) -> [NSManagedObject] {
        (0..<count).map { index in
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            item.setValue("Item \(index)", forKey: "name")
            return item
        }
    }

    /// Saves `count` new items, `obtainingFirst` of them given their keys beforehand; returns
    /// their IDs after the save, the did-save notification's set of new IDs, and the stack.
    private func saveNewItems(obtainingFirst: Int, in directory: TemporaryDirectory) throws -> ([NSManagedObjectID], Set<NSManagedObjectID>, TestStack) {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let recorder = NotificationRecorder(NSManagedObjectContext.didSaveObjectIDsNotification, object: context)
        let ids = try context.performAndWait {
            let items = insertItems(Self.count, into: context)
            try context.obtainPermanentIDs(for: Array(items.prefix(obtainingFirst)))
            try context.save()
            return items.map(\.objectID)
        }
        let note = try #require(recorder.notifications.last)
        return (ids, try #require(note.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>), stack)
    }

    @Test func theObjectsTheNotificationAndTheStoreAgreeOnTheNewIDs() throws {
        let directory = TemporaryDirectory()
        let (ids, notified, stack) = try saveNewItems(obtainingFirst: 0, in: directory)
        #expect(ids.allSatisfy { !$0.isTemporaryID })
        #expect(Set(ids.map { $0.uriRepresentation() }).count == Self.count)
        #expect(notified == Set(ids))
        let reader = try stack.reopened()
        let names = try reader.context.performAndWait {
            try [0, Self.count / 2, Self.count - 1].map { try reader.context.existingObject(with: ids[$0]).value(forKey: "name") as? String }
        }
        #expect(names == ["Item 0", "Item \(Self.count / 2)", "Item \(Self.count - 1)"])
    }

    /// Dogs and cats: one hierarchy under Animal, one key sequence.
    private static func pets() -> NSManagedObjectModel {
        let animal = TestModels.entity("Animal", [TestModels.attribute("name", .stringAttributeType)])
        let dog = TestModels.entity("Dog")
        let cat = TestModels.entity("Cat")
        animal.subentities = [dog, cat]
        let model = NSManagedObjectModel()
        model.entities = [animal, dog, cat]
        return model
    }

    /// New objects of two entities of one hierarchy in turn: the IDs made on the other thread from
    /// runs of one entity (those the did-save notification carries) name each object's own entity.
    @Test func objectsOfSeveralEntitiesInTurnGetIDsOfTheirOwnEntity() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Self.pets(), directory: directory)
        let context = stack.context
        let recorder = NotificationRecorder(NSManagedObjectContext.didSaveObjectIDsNotification, object: context)
        // One hierarchy: its objects share a key sequence, so a wrong entity makes no duplicate ID.
        let kinds = ["Dog", "Dog", "Cat", "Dog", "Cat", "Cat"]
        let (ids, entities) = try context.performAndWait {
            let objects = (0..<Self.count).map { index in
                let object = NSEntityDescription.insertNewObject(forEntityName: kinds[index % kinds.count], into: context)
                object.setValue("Pet \(index)", forKey: "name")
                return object
            }
            try context.save()
            return (objects.map(\.objectID), objects.map { $0.entity.name })
        }
        #expect(ids.allSatisfy { !$0.isTemporaryID })
        #expect(ids.map(\.entity.name) == entities)
        #expect(Set(ids).count == Self.count)
        let note = try #require(recorder.notifications.last)
        let notified = try #require(note.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)
        #expect(notified == Set(ids))
        // IDs of one hierarchy compare by key: their entities and URIs must agree too.
        func named(_ ids: some Sequence<NSManagedObjectID>) -> Set<String> {
            Set(ids.map { "\($0.entity.name ?? "") \($0.uriRepresentation().absoluteString)" })
        }
        #expect(named(notified).symmetricDifference(named(ids)).isEmpty)
        let reader = try stack.reopened()
        let read = try reader.context.performAndWait {
            try [0, 2, 3, 8, 2_000, Self.count - 1].map { index in
                let object = try reader.context.existingObject(with: ids[index])
                return "\(object.entity.name ?? "") \(object.value(forKey: "name") as? String ?? "")"
            }
        }
        #expect(read == [0, 2, 3, 8, 2_000, Self.count - 1].map { "\(kinds[$0 % kinds.count]) Pet \($0)" })
    }

    /// Objects given their keys before the save (`obtainPermanentIDs`) get no key from the save;
    /// the notification still lists every new object.
    @Test func objectsWithKeysAlreadyAreInTheNotificationToo() throws {
        let directory = TemporaryDirectory()
        let (ids, notified, _) = try saveNewItems(obtainingFirst: 3, in: directory)
        #expect(notified == Set(ids))
        #expect(Set(ids).count == Self.count)
    }

    /// The save fails inside the store's transaction, after the keys were allocated: the new
    /// objects keep temporary IDs, nothing is written, and saving again works.
    @Test func aFailedSaveLeavesTheNewObjectsTemporary() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let first = try context.performAndWait {
            let item = insertItems(1, into: context)[0]
            try context.save()
            _ = item.value(forKey: "name")
            return item
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        try other.performAndWait {
            try other.existingObject(with: first.objectID).setValue("theirs", forKey: "name")
            try other.save()
        }
        let items = context.performAndWait {
            first.setValue("mine", forKey: "name")
            return insertItems(Self.count, into: context)
        }
        #expect(context.saveError()?.code == NSManagedObjectMergeError)
        context.performAndWait {
            #expect(items.allSatisfy { $0.objectID.isTemporaryID && $0.isInserted })
        }
        let stored = try other.performAndWait { try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
        #expect(stored == 1)
        try context.performAndWait {
            context.refresh(first, mergeChanges: false)
            try context.save()
            #expect(items.allSatisfy { !$0.objectID.isTemporaryID })
        }
        let after = try other.performAndWait { try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
        #expect(after == Self.count + 1)
    }
}
