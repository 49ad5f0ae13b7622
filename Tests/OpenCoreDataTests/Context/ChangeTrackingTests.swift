import Testing
@testable import OpenCoreData

@Suite struct ChangeTrackingTests {
    private func savedItem(_ stack: TestStack) throws -> NSManagedObject {
        let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
        item.setValue("original", forKey: "name")
        try stack.context.save()
        return item
    }

    @Test func fetchedObjectsAreFaultsUntilRead() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            _ = try savedItem(stack)
            stack.context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            let fault = try stack.context.fetch(request)[0]
            #expect(fault.isFault)
            #expect(fault.value(forKey: "name") as? String == "original")
            #expect(!fault.isFault)
            stack.context.reset()
            request.returnsObjectsAsFaults = false
            #expect(try stack.context.fetch(request)[0].isFault == false)
            let ids = try stack.context.fetch(NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem").resultTyped(.managedObjectIDResultType))
            #expect(ids.count == 1 && !ids[0].isTemporaryID)
        }
    }

    @Test func changedValuesRollbackAndRefresh() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let item = try savedItem(stack)
            #expect(item.changedValues().isEmpty && !item.hasChanges)
            item.setValue("edited", forKey: "name")
            #expect(item.isUpdated)
            #expect(item.changedValues()["name"] as? String == "edited")
            #expect(item.committedValues(forKeys: ["name"])["name"] as? String == "original")
            stack.context.rollback()
            #expect(item.value(forKey: "name") as? String == "original")
            #expect(!stack.context.hasChanges)

            item.setValue("kept", forKey: "name")
            stack.context.refresh(item, mergeChanges: true)
            #expect(item.value(forKey: "name") as? String == "kept")
            #expect(item.isUpdated)
            stack.context.refresh(item, mergeChanges: false)
            #expect(item.isFault && !item.isUpdated)
            #expect(item.value(forKey: "name") as? String == "original")
        }
    }

    /// An object given values before it joins a context is inserted, not updated: the context
    /// lists it once, and saving it writes its values.
    @Test func anObjectGivenValuesBeforeItsInsertIsOnlyInserted() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let entity = try #require(stack.context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["TSPItem"])
            let item = NSManagedObject(entity: entity, insertInto: nil)
            item.setValue("before", forKey: "name")
            item.setValue("before", forKey: "name")
            stack.context.insert(item)
            #expect(item.isInserted && !item.isUpdated)
            #expect(stack.context.insertedObjects == [item] && stack.context.updatedObjects.isEmpty)
            try stack.context.save()
            #expect(!item.hasChanges)
            stack.context.reset()
            let fetched = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            #expect(fetched.map { $0.value(forKey: "name") as? String } == ["before"])
        }
    }

    /// An object deleted and saved has left its context; writing its own value again does not
    /// make it updated.
    @Test func aDeletedSavedObjectGivenItsOwnValueStaysUnchanged() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let item = try savedItem(stack)
            stack.context.delete(item)
            try stack.context.save()
            #expect(item.managedObjectContext == nil && !item.hasChanges)
            item.setValue("original", forKey: "name")
            #expect(!item.isUpdated && !item.hasChanges)
        }
    }

    /// Setting a value equal to the current one changes nothing a user can see: a saved object
    /// stays clean, and no undo step is recorded, whether or not the object is new.
    @Test func anEqualValueChangesNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let item = try savedItem(stack)
            item.setValue("original", forKey: "name")
            item.setValue(["orig", "inal"].joined(), forKey: "name")
            item.setValue(false, forKey: "done")
            #expect(!item.isUpdated && !stack.context.hasChanges)
            // Canonically equivalent is not equal: a decomposed "é" is a change, saved as such.
            item.setValue("caf\u{E9}", forKey: "name")
            try stack.context.save()
            item.setValue("cafe\u{301}", forKey: "name")
            #expect(item.isUpdated)
            try stack.context.save()
            stack.context.refresh(item, mergeChanges: false)
            #expect((item.value(forKey: "name") as? String)?.unicodeScalars.count == 5)

            let undo = UndoManager()
            stack.context.undoManager = undo
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            fresh.setValue("new", forKey: "name")
            stack.context.processPendingChanges()
            fresh.setValue("new", forKey: "name")
            stack.context.processPendingChanges()
            #expect(fresh.value(forKey: "name") as? String == "new")
            // One undo takes back the insertion: the equal value left no step of its own.
            stack.context.undo()
            #expect(stack.context.insertedObjects.isEmpty)

            stack.context.undoManager = nil
            let plain = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            plain.setValue("twice", forKey: "name")
            plain.setValue("twice", forKey: "name")
            #expect(plain.value(forKey: "name") as? String == "twice" && plain.isInserted)
        }
    }

    @Test func deletedAndInsertedObjectsAreTrackedUntilSave() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            let item = try savedItem(stack)
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            stack.context.delete(item)
            #expect(item.isDeleted && stack.context.deletedObjects == [item])
            #expect(stack.context.insertedObjects == [fresh])
            let pending = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            #expect(pending == [fresh])
            try stack.context.save()
            #expect(item.managedObjectContext == nil)
            #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 1)
        }
    }

    /// `reset()` detaches every object the app still holds (fetched or inserted): their context
    /// reads nil; objects fetched afterwards belong to the context again.
    @Test func resetDetachesHeldObjectsAndLaterFetchesBelongAgain() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        try context.performAndWait {
            let saved = try savedItem(stack)
            let inserted = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            context.undoManager = UndoManager()
            context.reset()
            #expect(saved.managedObjectContext == nil && inserted.managedObjectContext == nil)
            #expect(!context.hasChanges && context.registeredObjects.isEmpty)
            let again = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).first)
            #expect(again !== saved && again.managedObjectContext === context)
            again.setValue("after reset", forKey: "name")
            #expect(context.hasChanges && context.updatedObjects == [again])
            context.undo()
            #expect(again.value(forKey: "name") as? String != "after reset", "the undo manager still records after a reset")
        }
    }
}

extension NSFetchRequest {
    func resultTyped(_ type: NSFetchRequestResultType) -> Self {
        resultType = type
        return self
    }
}

@Suite struct ObjectsDidChangeTests {
    @Test func processPendingChangesPostsTheEventsChanges() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let recorder = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: stack.context)
        try stack.context.performAndWait {
            let kept = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            try stack.context.save()
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            kept.setValue("changed", forKey: "name")
            stack.context.processPendingChanges()
            let info = try #require(recorder.notifications.last?.userInfo)
            #expect(info[NSInsertedObjectsKey] as? Set<NSManagedObject> == [fresh])
            #expect(info[NSUpdatedObjectsKey] as? Set<NSManagedObject> == [kept])
            stack.context.delete(kept)
            stack.context.processPendingChanges()
            #expect(recorder.notifications.last?.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject> == [kept])
        }
    }

    /// Every event lists what changed in it, whatever earlier events listed: an object changed
    /// again, an unsaved object changed after the event that inserted it (as updated), deleted
    /// after it (as deleted), and refreshed objects — what a fetched results controller follows.
    @Test func eachEventListsWhatChangedInIt() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let recorder = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: stack.context)
        func last(_ key: String) -> Set<NSManagedObject> {
            recorder.notifications.last?.userInfo?[key] as? Set<NSManagedObject> ?? []
        }
        try stack.context.performAndWait {
            let saved = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            try stack.context.save()
            saved.setValue("one", forKey: "name")
            stack.context.processPendingChanges()
            saved.setValue("two", forKey: "name")
            let unsaved = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            unsaved.setValue("new", forKey: "name")
            stack.context.processPendingChanges()
            #expect(last(NSUpdatedObjectsKey) == [saved])
            #expect(last(NSInsertedObjectsKey) == [unsaved])
            let count = recorder.notifications.count

            unsaved.setValue("newer", forKey: "name")
            stack.context.processPendingChanges()
            #expect(recorder.notifications.count == count + 1)
            #expect(last(NSUpdatedObjectsKey) == [unsaved] && last(NSInsertedObjectsKey).isEmpty)

            stack.context.delete(unsaved)
            stack.context.processPendingChanges()
            #expect(last(NSDeletedObjectsKey) == [unsaved])

            // Inserted and deleted within one event: never told at all.
            let fleeting = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            stack.context.delete(fleeting)
            stack.context.processPendingChanges()
            #expect(recorder.notifications.count == count + 2)

            stack.context.refresh(saved, mergeChanges: false)
            stack.context.processPendingChanges()
            #expect(last(NSRefreshedObjectsKey) == [saved])
            #expect(!saved.hasChanges)
            saved.setValue("three", forKey: "name")
            #expect(saved.isUpdated && stack.context.updatedObjects == [saved])
        }
    }

    /// The did-save notification reuses the inserted set the save's own objects-did-change
    /// notification built when they hold the same objects; it must not when they differ.
    @Test func didSaveListsEveryInsertedObjectWhateverCameBefore() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let changes = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: context)
        let saves = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification, object: context)
        func lastInserted(_ recorder: NotificationRecorder) -> Set<NSManagedObject>? {
            recorder.notifications.last?.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>
        }
        try context.performAndWait {
            // An event processed before the save: the save's own event has only the later object.
            let first = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            context.processPendingChanges()
            let second = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            try context.save()
            #expect(lastInserted(changes) == [second])
            #expect(lastInserted(saves) == [first, second])

            // The usual case: the save's event is all of it.
            let third = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            try context.save()
            #expect(lastInserted(changes) == [third])
            #expect(lastInserted(saves) == [third])

            // An observer of the save's event swaps the new object for another: as many objects,
            // not the same ones.
            let fourth = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            let swap = SwappedObjects(removing: fourth)
            let observer = NotificationCenter.default.addObserver(
                forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
            ) { _ in
                guard swap.added == nil else { return }
                context.delete(swap.removing)
                swap.added = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            try context.save()
            let fifth = try #require(swap.added)
            #expect(lastInserted(saves) == [fifth])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 4)
        }
    }

    /// The same for updated and deleted objects: the save's event may list fewer of them, or one
    /// object twice (changed, refreshed, changed again).
    @Test func didSaveListsEveryUpdatedAndDeletedObjectWhateverCameBefore() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let saves = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification, object: context)
        func last(_ key: String) -> Set<NSManagedObject>? {
            saves.notifications.last?.userInfo?[key] as? Set<NSManagedObject>
        }
        try context.performAndWait {
            let items = (0..<4).map { _ in NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context) }
            try context.save()

            items[0].setValue("a", forKey: "name")
            context.processPendingChanges()
            items[1].setValue("b", forKey: "name")
            try context.save()
            #expect(last(NSUpdatedObjectsKey) == [items[0], items[1]])

            items[0].setValue("a2", forKey: "name")
            context.refresh(items[0], mergeChanges: false)
            items[0].setValue("a3", forKey: "name")
            items[1].setValue("b2", forKey: "name")
            try context.save()
            #expect(last(NSUpdatedObjectsKey) == [items[0], items[1]])
            #expect(items[0].value(forKey: "name") as? String == "a3")

            items[2].setValue("c", forKey: "name")
            try context.save()
            #expect(last(NSUpdatedObjectsKey) == [items[2]])

            context.delete(items[2])
            context.processPendingChanges()
            context.delete(items[3])
            try context.save()
            #expect(last(NSDeletedObjectsKey) == [items[2], items[3]])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 2)
        }
        let reopened = try stack.reopened()
        let names = try reopened.context.performAndWait {
            try reopened.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(Set(names) == ["a3", "b2"])
    }
}

/// The object a notification observer deletes and the one it inserts instead; the observer runs
/// on the context's queue, inside its save.
private final class SwappedObjects: @unchecked Sendable {
    // @unchecked Sendable: written and read on the context's queue only.
    let removing: NSManagedObject
    var added: NSManagedObject?
    init(removing: NSManagedObject) { self.removing = removing }
}
