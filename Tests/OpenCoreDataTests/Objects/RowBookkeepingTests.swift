import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// An object keeps its row's key, version and committed values in one word until it needs more
/// (`NSManagedObject+RowBookkeeping.swift`): what a user sees of them is the same either way.
@Suite struct RowBookkeepingTests {
    /// A store whose item rows have exactly these keys and versions, written into the file.
    private func stack(_ directory: TemporaryDirectory, rows: [(key: Int64, version: Int64)]) throws -> TestStack {
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let seeding = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        seeding.persistentStoreCoordinator = stack.coordinator
        try seeding.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: seeding).setValue("seed", forKey: "name")
            try seeding.save()
        }
        try replaceItems(at: stack.url, with: rows.map { ($0.key, $0.version, "Item \($0.key)") })
        return stack
    }

    /// Writes exactly these item rows into the store file at `url`, instead of the ones it has.
    private func replaceItems(at url: URL, with rows: [(key: Int64, version: Int64, name: String)]) throws {
        let queue = try GRDBQueue.make(url)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM ZTSPITEM")
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO ZTSPITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZDONE, ZCREATEDAT) VALUES (?, 1, ?, ?, 0, 0)",
                    arguments: [row.key, row.version, row.name])
            }
        }
        try queue.close()
    }

    private func versions(at url: URL) throws -> [Int64: Int64] {
        let queue = try GRDBQueue.make(url)
        defer { try? queue.close() }
        return try queue.read { db in
            var versions: [Int64: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_OPT FROM ZTSPITEM") { versions[row[0]] = row[1] }
            return versions
        }
    }

    private func items(in context: NSManagedObjectContext, asFaults: Bool = false) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.returnsObjectsAsFaults = asFaults
        return try context.fetch(request)
    }

    @Test func writingAFetchedObjectLeavesItsCommittedValuesAsRead() throws {
        let directory = TemporaryDirectory()
        let stack = try stack(directory, rows: [(1, 1), (2, 1)])
        let context = stack.context
        try context.performAndWait {
            for asFaults in [false, true] {
                let item = try items(in: context, asFaults: asFaults)[0]
                item.setValue("Renamed", forKey: "name")
                #expect(item.committedValues(forKeys: ["name"])["name"] as? String == "Item 1")
                #expect(item.changedValues()["name"] as? String == "Renamed")
                context.refresh(item, mergeChanges: false)
                #expect(item.value(forKey: "name") as? String == "Item 1")
                item.setValue("Renamed again", forKey: "name")
                context.rollback()
                #expect(item.value(forKey: "name") as? String == "Item 1")
                #expect(!item.hasChanges)
                context.reset()
            }
        }
    }

    @Test func aSavedChangeBecomesTheCommittedValueAndTheNextChangeLeavesIt() throws {
        let directory = TemporaryDirectory()
        let stack = try stack(directory, rows: [(1, 1)])
        let context = stack.context
        try context.performAndWait {
            let item = try items(in: context)[0]
            item.setValue("Saved", forKey: "name")
            try context.save()
            #expect(item.committedValues(forKeys: ["name"])["name"] as? String == "Saved")
            item.setValue("Unsaved", forKey: "name")
            #expect(item.committedValues(forKeys: ["name"])["name"] as? String == "Saved")
            let inserted = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            inserted.setValue("New", forKey: "name")
            try context.save()
            inserted.setValue("New, changed", forKey: "name")
            #expect(inserted.committedValues(forKeys: ["name"])["name"] as? String == "New")
            #expect(inserted.changedValues()["name"] as? String == "New, changed")
        }
    }

    /// Keys of more than 40 bits and versions of more than 16 do not fit the object's word: they
    /// name the same rows and guard the same saves.
    @Test func keysAndVersionsTooLargeForOneWordNameAndGuardTheirRows() throws {
        let directory = TemporaryDirectory()
        let largeKey: Int64 = 1 << 41 + 5
        let stack = try stack(directory, rows: [(3, 65_535), (largeKey, 70_000)])
        let context = stack.context
        // Held here: the context holds clean objects weakly, as Core Data's does.
        let held = try context.performAndWait {
            let held = try items(in: context).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            #expect(held.map(\.objectID.primaryKey) == [3, largeKey])
            #expect(held[1].objectID.uriRepresentation().lastPathComponent == "p\(largeKey)")
            #expect(context.object(with: held[1].objectID) === held[1])
            for item in held { item.setValue(true, forKey: "done") }
            try context.save()
            return held
        }
        #expect(try versions(at: stack.url) == [3: 65_536, largeKey: 70_001])

        // Another writer moves the large row on: the next save of the stale object is refused.
        let queue = try GRDBQueue.make(stack.url)
        try queue.write { db in try db.execute(sql: "UPDATE ZTSPITEM SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [largeKey]) }
        try queue.close()
        let refused = context.performAndWait {
            held[1].setValue(false, forKey: "done")
            do {
                try context.save()
                return nil as Int?
            } catch {
                return (error as NSError).code
            }
        }
        #expect(refused == CocoaError.Code.managedObjectMerge.rawValue)
    }

    /// An object names its store by a number among its context's stores, of which there are 63:
    /// a context that met more keeps the others in objects' records. Either way each object's
    /// ID names its own store, also once the store left the coordinator.
    @Test func objectsOfMoreStoresThanNumbersKeepTheirOwnStore() throws {
        let directory = TemporaryDirectory()
        let model = TestModels.todo()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let count = ContextToken.storeNumbers + 5
        var stores: [NSPersistentStore] = []
        var objects: [NSManagedObject] = []
        for index in 0..<count {
            let store = try coordinator.addPersistentStore(type: .inMemory, at: directory.file("Store\(index)"))
            let object = try context.performAndWait {
                let object = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                object.setValue("Item \(index)", forKey: "name")
                try context.save()
                return object
            }
            // The next store is the only one new objects can go to.
            if index < count - 1 { try coordinator.remove(store) }
            stores.append(store)
            objects.append(object)
        }
        context.performAndWait {
            for (object, store) in zip(objects, stores) {
                // Removed stores' IDs keep their store's identity (its UUID), not the store.
                #expect(object.objectID.uriRepresentation().host == store.identifier)
                #expect(object.objectID.primaryKey == 1)
                #expect(context.registeredObject(for: object.objectID) === object)
            }
            #expect(Set(objects.map(\.objectID)).count == count)
            #expect(objects.last?.objectID.persistentStore === stores.last)
        }
    }

    /// Store files named `S0.sqlite`… whose items have `keys`, named after their store.
    private func storeFiles(_ count: Int, keys: [Int64], in directory: TemporaryDirectory) throws -> [URL] {
        try (0..<count).map { index in
            let name = "S\(index).sqlite"
            let seeded = try TestStack(model: TestModels.todo(), directory: directory, name: name)
            try seeded.context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: seeded.context).setValue("seed", forKey: "name")
                try seeded.context.save()
            }
            try seeded.coordinator.remove(seeded.store)
            try replaceItems(at: seeded.url, with: keys.map { ($0, 1, "S\(index) \($0)") })
            return seeded.url
        }
    }

    /// Keys too large for the word go to a record with their store, whatever the store's number.
    @Test func rowsOfLargeKeysInSeveralStoresNameTheirOwnStore() throws {
        let directory = TemporaryDirectory()
        let keys = (0..<40).map { (Int64(1) << 41) + Int64($0) }
        let urls = try storeFiles(6, keys: keys, in: directory)
        let model = TestModels.todo()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let stores = try urls.map { try coordinator.addPersistentStore(type: .sqlite, at: $0) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let named = try context.performAndWait {
            let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            return objects.map { ($0, $0.value(forKey: "name") as? String ?? "") }
        }
        #expect(named.count == stores.count * keys.count)
        context.performAndWait {
            for (object, name) in named {
                let parts = name.split(separator: " ")
                let store = stores[Int(parts[0].dropFirst()) ?? 0]
                #expect(object.objectID.uriRepresentation().host == store.identifier, "\(name)")
                #expect(object.objectID.primaryKey == Int64(parts[1]))
                #expect(context.registeredObject(for: object.objectID) === object)
            }
        }
    }

    /// An object that outlived a reset names its store by the old token's number; inserted again,
    /// after the new token numbered another store first, it still names its own.
    @Test func anObjectInsertedAgainAfterAResetKeepsItsStore() throws {
        let directory = TemporaryDirectory()
        let urls = try storeFiles(2, keys: [1], in: directory)
        let model = TestModels.todo()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let stores = try urls.map { try coordinator.addPersistentStore(type: .sqlite, at: $0) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let host = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.affectedStores = [stores[0]]
            let fetched = try context.fetch(request)
            let first = try #require(fetched.first)
            context.reset()
            request.affectedStores = [stores[1]]
            let second = try context.fetch(request)
            #expect(second.first?.objectID.uriRepresentation().host == stores[1].identifier)
            context.insert(first)
            return first.objectID.uriRepresentation().host
        }
        #expect(host == stores[0].identifier)
    }
}
