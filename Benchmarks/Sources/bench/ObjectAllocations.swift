import BenchmarkSupport
import CAllocationCount
import Foundation
import OpenCoreData

/// How many heap allocations each step of an object's life makes, counted (every thread, every
/// malloc) rather than timed: issue 43 asks that the save's bookkeeping — its inserted, updated
/// and deleted sets, the did-save notifications' contents — allocate nothing per object beyond
/// what the user asked for. Raw SQLite's insert of the same rows is the floor.
enum ObjectAllocations {
    struct Line {
        var step: String
        var allocations: Int
        var objects: Int
        /// What a user of Core Data's API asked for in that step, allocated once per object.
        var expected: String
    }

    /// Counts the allocations of `body`, which must not be run concurrently with another count.
    private static func counting<T>(_ body: () throws -> T) rethrows -> (T, Int) {
        allocationcount_start()
        let result = try body()
        return (result, allocationcount_stop())
    }

    static func measure(fixture: Fixture, scratch: URL) throws -> [Line] {
        let data = fixture.data
        let changes = min(BenchCase.changeCount, data.count)
        var lines: [Line] = []

        let rawURL = try fixture.templates.copy(filled: false, into: scratch.appendingPathComponent("allocations-raw"))
        let raw = try RawSQLiteWay(databaseURL: rawURL, fixture: fixture)
        try raw.prepare(.insert)
        let (_, rawInsert) = try counting { try raw.run(.insert) }
        try raw.release()
        try raw.close()
        lines.append(Line(step: "raw SQLite: insert N rows, one transaction", allocations: rawInsert, objects: data.count, expected: "–"))
        for (benchCase, step) in [(BenchCase.update10k, "read and update"), (.delete10k, "delete")] {
            let url = try fixture.templates.copy(filled: true, into: scratch.appendingPathComponent("allocations-raw-\(benchCase.rawValue)"))
            let raw = try RawSQLiteWay(databaseURL: url, fixture: fixture)
            try raw.prepare(benchCase)
            let (count, allocations) = try counting { try raw.run(benchCase) }
            try raw.release()
            try raw.close()
            lines.append(Line(step: "raw SQLite: \(step) \(count) rows, one transaction", allocations: allocations, objects: count, expected: "–"))
        }

        let url = try fixture.templates.copy(filled: false, into: scratch.appendingPathComponent("allocations-ocd"))
        let container = NSPersistentContainer(name: "Bench", managedObjectModel: fixture.model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        let context = container.newBackgroundContext()
        // Someone listening to both did-save notifications, reading what they carry.
        let observed = ObservedSaves()
        let tokens = [
            NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: context, queue: nil) {
                observed.add(($0.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0)
            },
            NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: context, queue: nil) {
                observed.add(($0.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)?.count ?? 0)
            },
        ]
        defer { for token in tokens { NotificationCenter.default.removeObserver(token) } }
        try context.performAndWait {
            var items: [TSPItem] = []
            items.reserveCapacity(data.count)
            let (_, inserting) = counting {
                for i in 0..<data.count {
                    let item = TSPItem(context: context)
                    item.name = data.names[i]
                    item.createdAt = data.dates[i]
                    item.done = data.done[i]
                    items.append(item)
                }
            }
            lines.append(Line(step: "insert N typed objects", allocations: inserting, objects: data.count, expected: "the object, its values"))
            let (_, saving) = try counting { try context.save() }
            lines.append(Line(step: "save them (both did-save notifications observed)", allocations: saving, objects: data.count, expected: "the permanent ID the IDs notification carries"))
            items = []
            context.reset()

            let request = NSFetchRequest<TSPItem>(entityName: "TSPItem")
            request.returnsObjectsAsFaults = false
            let (fetched, fetching) = try counting { try context.fetch(request) }
            lines.append(Line(step: "fetch all N", allocations: fetching, objects: fetched.count, expected: "the object"))

            let changed = fetched.prefix(changes)
            let (_, writing) = counting { for item in changed { item.done.toggle() } }
            lines.append(Line(step: "change \(changes) fetched objects", allocations: writing, objects: changes, expected: "its values, the record of its committed ones"))
            let (_, savingUpdates) = try counting { try context.save() }
            lines.append(Line(step: "save the changes", allocations: savingUpdates, objects: changes, expected: "the object ID the IDs notification carries"))

            let deleted = fetched.suffix(changes)
            let (_, deleting) = counting { for item in deleted { context.delete(item) } }
            lines.append(Line(step: "delete \(changes) fetched objects", allocations: deleting, objects: changes, expected: "–"))
            let (_, savingDeletes) = try counting { try context.save() }
            lines.append(Line(step: "save the deletions", allocations: savingDeletes, objects: changes, expected: "the object ID the IDs notification carries; the record that keeps it and the store for the object out of its context"))
        }
        guard observed.total == data.count * 2 else {
            throw BenchError("allocations: the did-save notifications listed \(observed.total) new objects and IDs where \(data.count * 2) were expected")
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
        return lines
    }

    static func render(_ lines: [Line]) -> String {
        var text = "Heap allocations per object (every thread, SQLite's own included; counted, not timed)\n\n"
        text += "| step | allocations | objects | per object | what the user asked for, per object |\n|---|--:|--:|--:|---|\n"
        for line in lines {
            let per = line.objects > 0 ? String(format: "%.2f", Double(line.allocations) / Double(line.objects)) : "–"
            text += "| \(line.step) | \(line.allocations) | \(line.objects) | \(per) | \(line.expected) |\n"
        }
        return text
    }

    /// What the observers saw, from whichever thread posted.
    private final class ObservedSaves: @unchecked Sendable {
        // @unchecked Sendable: the notifications are posted on the context's queue, one at a time.
        private(set) var total = 0
        func add(_ count: Int) { total += count }
    }
}
