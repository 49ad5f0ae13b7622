import GRDB
import Testing
@testable import OpenCoreData

/// Uniquing across the registry's page boundaries and for keys far apart: a fetch
/// returns the very objects the context already holds, whatever their primary keys.
@Suite struct ObjectRegistryTests {
    /// Primary keys at the edges of pages (256 keys each), and far apart (up to nine billion).
    static let keys: [Int64] = [1, 255, 256, 257, 511, 512, 70_000, 33_554_431, 33_554_432, 9_000_000_000]

    /// A stack whose store holds an item for each of `keys`, written straight into the file.
    private func stack(_ directory: TemporaryDirectory) throws -> TestStack {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let seeding = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        seeding.persistentStoreCoordinator = stack.coordinator
        try seeding.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: seeding).setValue("seed", forKey: "name")
            try seeding.save()
        }
        let queue = try GRDBQueue.make(stack.url)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM ZTSPITEM")
            for key in Self.keys {
                try db.execute(
                    sql: "INSERT INTO ZTSPITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZDONE, ZCREATEDAT) VALUES (?, 1, 1, ?, 0, ?)",
                    arguments: [key, "Item \(key)", -Double(key)])
            }
        }
        try queue.close()
        return stack
    }

    @Test func fetchesReturnTheRegisteredObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try stack(directory)
        let context = stack.context
        let (same, names, registered, lookedUp) = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let first = try context.fetch(request)
            let second = try context.fetch(request)
            let same = zip(first, second).allSatisfy { $0 === $1 } && first.count == second.count
            let names = Set(first.compactMap { $0.value(forKey: "name") as? String })
            let lookedUp = first.allSatisfy { context.registeredObject(for: $0.objectID) === $0 && context.object(with: $0.objectID) === $0 }
            return (same, names, context.registeredObjects.count, lookedUp)
        }
        #expect(same)
        #expect(names == Set(Self.keys.map { "Item \($0)" }))
        #expect(registered == Self.keys.count)
        #expect(lookedUp)
    }

    @Test func resetAndMergedDeletesForgetObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try stack(directory)
        let context = stack.context
        let (afterDelete, afterReset, refetched) = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            let objects = try context.fetch(request)
            for object in objects where (object.value(forKey: "name") as? String)?.hasSuffix("000") == true {
                context.delete(object)
            }
            try context.save()
            let afterDelete = context.registeredObjects.count
            context.reset()
            let afterReset = context.registeredObjects.count
            let refetched = try context.fetch(request)
            return (afterDelete, afterReset, refetched.map(\.objectID))
        }
        // "Item 70000" and "Item 9000000000" were deleted.
        #expect(afterDelete == Self.keys.count - 2)
        #expect(afterReset == 0)
        #expect(refetched.count == Self.keys.count - 2)
    }

    /// A fetch sorted by a date (sorted in memory) makes its objects in the sort's order; let go
    /// of, each leaves its page, near or far, and a new fetch makes new objects in their place.
    @Test func objectsOfASortedFetchLeaveTheirPagesWhenReleased() throws {
        let directory = TemporaryDirectory()
        let stack = try stack(directory)
        let context = stack.context
        let (names, releasedAll, emptied, again) = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
            var released: [() -> NSManagedObject?] = []
            var names: [String] = []
            try {
                let objects = try context.fetch(request)
                names = objects.compactMap { $0.value(forKey: "name") as? String }
                released = objects.map { object in { [weak object] in object } }
            }()
            let emptied = context.registeredObjects.isEmpty
            let again = try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
            return (names, released.allSatisfy { $0() == nil }, emptied, again)
        }
        // The dates are the keys negated: the largest key first.
        #expect(names == Self.keys.reversed().map { "Item \($0)" })
        #expect(releasedAll)
        #expect(emptied)
        #expect(again == names)
    }
}
