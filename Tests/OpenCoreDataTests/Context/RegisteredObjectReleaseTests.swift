import Foundation
import Testing
@testable import OpenCoreData

/// Core Data holds registered objects weakly: an object the app no longer references and that
/// has no unsaved change leaves its context as its last reference goes, on whatever thread.
@Suite struct RegisteredObjectReleaseTests {
    /// Items over three of the registry's pages (256 keys each).
    private let itemCount = 700

    private func fetchAll(_ context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        return try context.fetch(request)
    }

    private func fetchOne(_ context: NSManagedObjectContext) throws -> NSManagedObject? {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// A stack on a store of `itemCount` saved items, its context holding none of them.
    private func savedItems(_ directory: TemporaryDirectory) throws -> TestStack {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(itemCount, in: stack.context)
        stack.context.performAndWait { stack.context.reset() }
        return stack
    }

    @Test func aCleanObjectLeavesTheContextWithItsLastReference() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            weak var dropped: NSManagedObject?
            var kept: NSManagedObject?
            var droppedID: NSManagedObjectID?
            try {
                let objects = try fetchAll(context)
                dropped = objects[1]
                droppedID = objects[1].objectID
                kept = objects[2]
                #expect(context.registry.count == itemCount)
            }()
            #expect(dropped == nil, "released with the fetch's array, before any other call")
            #expect(context.registeredObjects == [kept!])
            #expect(context.registeredObject(for: droppedID!) == nil)
            #expect(context.registeredObject(for: kept!.objectID) === kept)
            // The released row comes back as a new object, with its ID and values.
            let again = try fetchAll(context)
            #expect(again.count == itemCount && again[2] === kept)
            #expect(again[1].objectID == droppedID && again[1].value(forKey: "name") as? String == "Item 1")
        }
    }

    @Test func objectsWithChangesStayUntilSaved() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            weak var changed: NSManagedObject?
            weak var deleted: NSManagedObject?
            weak var inserted: NSManagedObject?
            try {
                let objects = try fetchAll(context)
                changed = objects[2]
                deleted = objects[3]
                objects[2].setValue("edited", forKey: "name")
                context.delete(objects[3])
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("new", forKey: "name")
                item.setValue(Date.distantFuture, forKey: "createdAt")
                _ = item.objectID
                inserted = item
            }()
            #expect(changed != nil && deleted != nil && inserted != nil, "unsaved changes keep their objects")
            #expect(context.registeredObjects.count == 3)
            try context.save()
            #expect(changed == nil && deleted == nil && inserted == nil, "saved, nothing holds them")
            #expect(context.registry.count == 0)
            let names = try fetchAll(context).map { $0.value(forKey: "name") as? String }
            #expect(names.count == itemCount && names.prefix(3) == ["Item 0", "Item 1", "edited"] && names.last == "new")
        }
    }

    @Test func undoneChangesLetTheirObjectsGo() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            weak var changed: NSManagedObject?
            weak var inserted: NSManagedObject?
            try {
                let objects = try fetchAll(context)
                changed = objects[2]
                objects[2].setValue("edited", forKey: "name")
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                _ = item.objectID
                inserted = item
            }()
            context.rollback()
            #expect(changed == nil && inserted == nil)
            #expect(context.registry.count == 0 && context.registeredObjects.isEmpty)
            #expect(try fetchAll(context)[2].value(forKey: "name") as? String == "Item 2")
        }
    }

    @Test func retainsRegisteredObjectsKeepsEveryObjectUntilTurnedOff() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            context.retainsRegisteredObjects = true
            weak var dropped: NSManagedObject?
            try { dropped = try fetchAll(context)[1] }()
            #expect(dropped != nil)
            #expect(context.registeredObjects.count == itemCount)
            #expect(try fetchAll(context)[1] === dropped)
            context.retainsRegisteredObjects = false
            #expect(dropped == nil)
            #expect(context.registry.count == 0)
        }
    }

    @Test func objectsAlreadyRegisteredAreKeptWhenRetainingBegins() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            weak var held: NSManagedObject?
            try {
                let objects = try fetchAll(context)
                context.retainsRegisteredObjects = true
                held = objects[5]
            }()
            #expect(held != nil && context.registry.count == itemCount)
            // A reset lets go of them: the old registry's objects belong to no context now.
            context.reset()
            #expect(held == nil)
            #expect(context.retainsRegisteredObjects)
            weak var again: NSManagedObject?
            try { again = try fetchOne(context) }()
            #expect(again != nil, "the reset context still retains its objects")
        }
    }

    @Test func uniquingHoldsWhileHeldAndANewInstanceComesAfterRelease() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory).context
        try context.performAndWait {
            let first = try #require(try fetchOne(context))
            let id = first.objectID
            #expect(try fetchOne(context) === first)
            #expect(context.object(with: id) === first && context.registeredObject(for: id) === first)
        }
        let (isNew, name) = try context.performAndWait {
            weak var previous: NSManagedObject?
            var id: NSManagedObjectID?
            try {
                let object = try #require(try fetchOne(context))
                previous = object
                id = object.objectID
            }()
            let isNew = previous == nil && context.registeredObject(for: id!) == nil
            let object = context.object(with: id!)
            return (isNew && object.isFault && object.objectID == id, object.value(forKey: "name") as? String)
        }
        #expect(isNew)
        #expect(name == "Item 0")
    }

    /// Objects handed to other threads and let go of there while the context fetches the same
    /// rows: each release takes its object out, no fetch is handed an object on its way out, and
    /// in the end the context holds exactly what its last fetch returned.
    @Test func objectsReleasedOnOtherThreadsLeaveTheRegistry() throws {
        let directory = TemporaryDirectory()
        let stack = try savedItems(directory)
        let context = stack.context
        for _ in 0..<20 {
            let batch = try context.performAndWait { SendableObjects(try fetchAll(context)) }
            // Let go of on two threads while the context fetches again.
            let (first, second) = batch.split()
            let releases = DispatchGroup()
            DispatchQueue.global().async(group: releases) { first.release() }
            DispatchQueue.global().async(group: releases) { second.release() }
            let (count, unique) = try context.performAndWait {
                let objects = try fetchAll(context)
                let unique = objects.allSatisfy { context.registeredObject(for: $0.objectID) === $0 }
                return (objects.count, unique)
            }
            releases.wait()
            #expect(count == itemCount && unique)
        }
        #expect(context.performAndWait { context.registry.count } == 0)
    }

    /// A fault for a relationship's destination outlives the object it was read from, and a
    /// released destination comes back as a new fault that fills from the store.
    @Test func relationshipFaultsOutliveTheirSource() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let context = stack.context
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Le Guin", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("The Dispossessed", forKey: "title")
            book.setValue(author, forKey: "author")
            try context.save()
            context.reset()
        }
        try context.performAndWait {
            weak var source: NSManagedObject?
            var destination: NSManagedObject?
            try {
                let book = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
                source = book
                destination = book.value(forKey: "author") as? NSManagedObject
            }()
            #expect(source == nil, "the book went; its author's fault stays")
            #expect(destination?.isFault == true)
            #expect(destination?.value(forKey: "name") as? String == "Le Guin")
            let authorID = try #require(destination?.objectID)
            destination = nil
            #expect(context.registeredObject(for: authorID) == nil)
            let book = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
            let author = try #require(book.value(forKey: "author") as? NSManagedObject)
            #expect(author.objectID == authorID && author.value(forKey: "name") as? String == "Le Guin")
            #expect((author.value(forKey: "books") as? Set<NSManagedObject>) == [book])
        }
    }

    /// A merge changes the objects the context holds and nothing it let go of: released rows come
    /// back with the merged values from the store; a refresh reaches the held ones.
    @Test func mergesAndRefreshesReachHeldObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try savedItems(directory)
        let context = stack.context
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        let held = try context.performAndWait { try fetchAll(context)[2] }
        // The merge as apps write it: the other context's did-save notification, merged on this
        // context's queue.
        let observer = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didSaveObjectsNotification, object: other, queue: nil
        ) { note in context.performAndWait { context.mergeChanges(fromContextDidSave: note) } }
        defer { NotificationCenter.default.removeObserver(observer) }
        try other.performAndWait {
            let objects = try fetchAll(other)
            objects[1].setValue("merged 1", forKey: "name")
            objects[2].setValue("merged 2", forKey: "name")
            try other.save()
        }
        let (heldName, releasedName, registered) = try context.performAndWait {
            let registered = context.registry.count
            return (held.value(forKey: "name") as? String, try fetchAll(context)[1].value(forKey: "name") as? String, registered)
        }
        #expect(heldName == "merged 2")
        #expect(releasedName == "merged 1")
        #expect(registered == 1, "the merge made no object for a row the context had let go of")
        try other.performAndWait {
            try fetchAll(other)[2].setValue("refreshed", forKey: "name")
            try other.save()
        }
        let refreshed = context.performAndWait {
            context.refreshAllObjects()
            return held.value(forKey: "name") as? String
        }
        #expect(refreshed == "refreshed")
    }

    /// An asynchronous fetch publishes its objects a page at a time; where the context registered
    /// another object for a row meanwhile, that object takes the fetch's place, unless it was
    /// released before the fetch got to it, when the fetch's own object must be registered.
    @Test func anAsynchronousFetchRegistersItsObjectWhereTheContextsWasReleased() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(5 * 256)
        // The interleaving needs the context's blocks to land between the fetch's pages; on a
        // loaded machine the fetch may publish the rows first, so the scenario is tried on fresh
        // contexts until it happened, every attempt checking the registration.
        var happened = false
        for _ in 0..<10 where !happened {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = stack.coordinator
            let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: context)
            // A page of the registry a block.
            request.registrationSlice = 0
            let result = try execute(request, in: context)
            let interleaver = FetchAndReleaseWhilePublishing(context: context)
            interleaver.check()
            #expect(probe.wait())
            happened = interleaver.released > 0
            let objects = try #require(result.finalResult)
            let registered = context.performAndWait { objects.allSatisfy { context.registeredObject(for: $0.objectID) === $0 } }
            #expect(objects.count == 5 * 256 && registered)
        }
        #expect(happened, "the context's objects were never released between the fetch's pages")
    }

    /// A large save lets go of its objects on a second thread: they leave the context once that
    /// release is done, and an object the app holds stays. (With one core the save lets go of
    /// them itself, and the same holds at once.)
    @Test func aLargeSavesObjectsLeaveOnceItsLeftoversAreReleased() throws {
        let directory = TemporaryDirectory()
        let context = try TestStack(model: TestModels.todo(), directory: directory).context
        let count = SecondThread.minimumCount + 10
        try context.performAndWait {
            weak var dropped: NSManagedObject?
            var kept: NSManagedObject?
            try {
                for i in 0..<count {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                    item.setValue("Item \(i)", forKey: "name")
                    if i == 1 { dropped = item }
                    if i == 2 { kept = item }
                }
                try context.save()
            }()
            SecondThread.waitForReleases()
            #expect(dropped == nil)
            #expect(context.registeredObjects == [kept!])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == count)
        }
    }

    /// An app that saves batches in one context and keeps none of them: the saved objects do not
    /// pile up in the context.
    @Test func savingInALoopKeepsMemoryBounded() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let rounds = 12
        try context.performAndWait {
            for round in 0..<rounds {
                for i in 0..<1000 {
                    NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                        .setValue("Item \(round)-\(i)", forKey: "name")
                }
                try context.save()
            }
            #expect(context.registry.count == 0, "the saved objects went with the app's last references")
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == rounds * 1000)
        }
    }
}

/// Runs between an asynchronous fetch's blocks (a block on the context's queue that queues
/// itself again): once the fetch has published its first page into the registry, fetches one row
/// of each page and holds the objects (the rows of pages not yet published get objects of the
/// context's own, which the fetch then finds in its way); after the fetch's next block, lets go
/// of them, so that they leave the registry before the fetch puts its results together.
private final class FetchAndReleaseWhilePublishing: @unchecked Sendable {
    // @unchecked Sendable: the fields are touched on the context's queue only, and `released` read
    // after the fetch's completion, which runs on that queue later.
    private let context: NSManagedObjectContext
    private var held: [NSManagedObject]?
    private(set) var released = 0

    init(context: NSManagedObjectContext) { self.context = context }

    func check() {
        context.perform { [self] in
            guard context.registry.count > 0 else { return check() }
            guard held != nil else {
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.predicate = NSPredicate(format: "name IN %@", ["Item 1", "Item 257", "Item 513", "Item 769", "Item 1025", "Item 1280"])
                self.held = (try? context.fetch(request)) ?? []
                return check()
            }
            let before = context.registry.count
            self.held = []
            released = before - context.registry.count
        }
    }
}

/// A fetch's objects, handed to another thread to be let go of there.
private final class SendableObjects: @unchecked Sendable {
    // @unchecked Sendable: a holder is made on one thread and then used by one task only, which
    // lets go of the objects without touching them; their release is what the test is about.
    private var objects: [NSManagedObject]

    init(_ objects: [NSManagedObject]) { self.objects = objects }

    /// Two holders of half the objects each; this one lets go of all.
    func split() -> (SendableObjects, SendableObjects) {
        let all = objects
        objects = []
        return (SendableObjects(Array(all[..<(all.count / 2)])), SendableObjects(Array(all[(all.count / 2)...])))
    }

    /// Lets go of the objects on the caller's thread.
    func release() { objects = [] }
}
