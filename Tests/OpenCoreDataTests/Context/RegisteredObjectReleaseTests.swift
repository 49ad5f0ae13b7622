import Foundation
import Testing
@testable import OpenCoreData

/// Core Data holds registered objects weakly: a long-lived context keeps only what the app holds
/// and what has unsaved changes. Here the context lets go of the rest when a fetch or a save
/// begins with enough registered objects.
@Suite struct RegisteredObjectReleaseTests {
    /// More items than a context registers before it looks for unreferenced ones.
    private let itemCount = NSManagedObjectContext.registeredToRelease + 500

    private func fetchAll(_ context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        return try context.fetch(request)
    }

    private func fetchOne(_ context: NSManagedObjectContext) throws -> NSManagedObject? {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// A context on a store of `itemCount` saved items, holding none of them.
    private func savedItems(_ directory: TemporaryDirectory) throws -> NSManagedObjectContext {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(itemCount, in: stack.context)
        stack.context.performAndWait { stack.context.reset() }
        return stack.context
    }

    @Test func objectsTheAppLetGoOfAreReleasedByTheNextFetch() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory)
        try context.performAndWait {
            weak var dropped: NSManagedObject?
            var kept: NSManagedObject?
            try {
                let objects = try fetchAll(context)
                dropped = objects[1]
                kept = objects[2]
                #expect(context.registry.count == itemCount)
            }()
            #expect(dropped != nil, "nothing is released before the next fetch")
            let first = try fetchOne(context)
            #expect(dropped == nil)
            #expect(context.registeredObjects == [kept!, first!])
            // The released rows come back as new objects, with their values.
            let again = try fetchAll(context)
            #expect(again.count == itemCount && again[2] === kept && again[0] === first)
            #expect(again[1].value(forKey: "name") as? String == "Item 1")
        }
    }

    @Test func objectsWithChangesStayUntilSavedAndTheNextSaveReleasesTheRest() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory)
        try context.performAndWait {
            weak var dropped: NSManagedObject?
            weak var changed: NSManagedObject?
            weak var deleted: NSManagedObject?
            try {
                let objects = try fetchAll(context)
                dropped = objects[1]
                changed = objects[2]
                deleted = objects[3]
                objects[2].setValue("edited", forKey: "name")
                context.delete(objects[3])
            }()
            try context.save()
            #expect(dropped == nil)
            #expect(context.registry.count == 1, "the saved change is all that is left")
            #expect(changed?.value(forKey: "name") as? String == "edited" && deleted == nil)
            let names = try fetchAll(context).prefix(3).map { $0.value(forKey: "name") as? String }
            #expect(names == ["Item 0", "Item 1", "edited"])
        }
    }

    @Test func retainsRegisteredObjectsKeepsEveryObject() throws {
        let directory = TemporaryDirectory()
        let context = try savedItems(directory)
        try context.performAndWait {
            context.retainsRegisteredObjects = true
            weak var dropped: NSManagedObject?
            try { dropped = try fetchAll(context)[1] }()
            _ = try fetchOne(context)
            #expect(dropped != nil)
            #expect(context.registeredObjects.count == itemCount)
        }
    }

    /// A release pass looks only at pages that hold objects: the pages it empties are left out of
    /// the next pass until a slot of theirs is handed out again.
    @Test func aPassLooksOnlyAtPagesThatHoldObjects() {
        let entity = TestModels.todo().entities[0]
        let table = PrimaryKeyTable()
        var held: [NSManagedObject] = []
        for key in Int64(1)...Int64(10 * 256) {
            let object = NSManagedObject(entity: entity, insertInto: nil)
            table.slot(for: key).pointee = object
            if key == 300 { held.append(object) }
        }
        #expect(table.occupiedPageCount == 11)
        #expect(table.removeUnreferenced() == 10 * 256 - 1)
        #expect(table.occupiedPageCount == 1)
        #expect(table[300] === held[0] && table[299] == nil)
        // A slot handed out again, in an emptied page and in the one remembered last.
        table.slot(for: 5).pointee = NSManagedObject(entity: entity, insertInto: nil)
        table.slot(for: 2_000).pointee = NSManagedObject(entity: entity, insertInto: nil)
        #expect(table.occupiedPageCount == 3)
        #expect(table.removeUnreferenced() == 2)
        #expect(table.occupiedPageCount == 1)
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
            #expect(context.registry.count <= 2 * NSManagedObjectContext.registeredToRelease + 1000)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == rounds * 1000)
        }
    }
}

/// Runs between an asynchronous fetch's blocks (a block on the context's queue that queues
/// itself again): once the fetch has published its first page into the registry, fetches one row
/// of each page (the rows of pages not yet published get objects of the context's own, which the
/// fetch then finds in its way) and lets go of them; after the fetch's next block, releases the
/// objects nothing holds.
private final class FetchAndReleaseWhilePublishing: @unchecked Sendable {
    // @unchecked Sendable: the fields are touched on the context's queue only, and `released` read
    // after the fetch's completion, which runs on that queue later.
    private let context: NSManagedObjectContext
    private var fetched = false
    private(set) var released = 0

    init(context: NSManagedObjectContext) { self.context = context }

    func check() {
        context.perform { [self] in
            guard context.registry.count > 0 else { return check() }
            if !fetched {
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.predicate = NSPredicate(format: "name IN %@", ["Item 1", "Item 257", "Item 513", "Item 769", "Item 1025", "Item 1280"])
                _ = try? context.fetch(request)
                fetched = true
                return check()
            }
            released = context.registry.removeUnreferenced()
        }
    }
}
