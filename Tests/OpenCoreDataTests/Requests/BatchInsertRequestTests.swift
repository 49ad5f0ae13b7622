import Foundation
import Testing
@testable import OpenCoreData

@Suite struct BatchInsertRequestTests {
    private func execute(_ request: NSBatchInsertRequest, in context: NSManagedObjectContext) throws -> NSBatchInsertResult {
        try context.performAndWait { try context.execute(request) as! NSBatchInsertResult }
    }

    private func books(_ stack: TestStack) throws -> [String: [String: Any]] {
        let fresh = try stack.reopened()
        return try fresh.context.performAndWait {
            var result: [String: [String: Any]] = [:]
            for book in try fresh.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")) {
                result[book.value(forKey: "isbn") as? String ?? "-"] = book.committedValues(forKeys: ["title", "pages"])
            }
            return result
        }
    }

    @Test func insertsDictionariesWithKeysFromZMaxInOneStep() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(2, in: stack.context)
        let recorder = StatementRecorder(stack.store)
        let request = NSBatchInsertRequest(entityName: "TSPItem", objects: [
            ["name": "new 1", "createdAt": BatchFixtures.start, "done": true],
            ["name": "new 2"],
            ["name": "new 3", "done": NSNumber(value: 0)],
        ])
        request.resultType = .objectIDs
        let result = try execute(request, in: stack.context)
        #expect(result.resultType == .objectIDs)
        let ids = try #require(result.result as? [NSManagedObjectID])
        #expect(ids.map(\.primaryKey) == [3, 4, 5])
        #expect(ids.allSatisfy { $0.entity.name == "TSPItem" && $0.persistentStore === stack.store })
        #expect(recorder.all.filter { $0.contains("Z_PRIMARYKEY") }.count == 2)  // one read, one write
        #expect(recorder.all.filter { $0.hasPrefix("INSERT") }.count == 3)  // one execution a row
        #expect(try StoreSnapshot.integers("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'TSPItem'", in: stack.url) == [5])

        let fresh = try stack.reopened()
        let items = try fresh.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "name BEGINSWITH 'new'")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try fresh.context.fetch(request).map { ($0.value(forKey: "done") as? Bool, $0.value(forKey: "createdAt") as? Date) }
        }
        // "done" was left out of the second dictionary: it takes the attribute's default, false.
        #expect(items.map(\.0) == [true, false, false])
        #expect(items.map(\.1) == [BatchFixtures.start, nil, nil])
    }

    @Test func countAndStatusResults() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let entity = stack.coordinator.managedObjectModel.entitiesByName["TSPItem"]!
        let request = NSBatchInsertRequest(entity: entity, objects: (0..<50).map { ["name": "n\($0)"] })
        request.resultType = .count
        #expect(try execute(request, in: stack.context).result as? Int == 50)
        let status = try execute(NSBatchInsertRequest(entity: entity, objects: [["name": "x"]]), in: stack.context)
        #expect(status.resultType == .statusOnly)
        #expect(status.result as? Bool == true)
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZTSPITEM WHERE Z_OPT = 1 AND Z_ENT = 1", in: stack.url) == [51])
    }

    @Test func manyRowsKeepTheirOrderKeysAndValues() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        // Several statements' worth of rows and a remainder, with text of every length.
        let names = (0..<150).map { String(repeating: "é", count: $0 % 40) + "\($0)" }
        let request = NSBatchInsertRequest(entityName: "TSPItem", objects: names.enumerated().map { i, name in
            ["name": name, "done": i % 3 == 0, "createdAt": BatchFixtures.start.addingTimeInterval(Double(i))]
        })
        request.resultType = .objectIDs
        let ids = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        #expect(ids.map(\.primaryKey) == Array(1...150))
        let fresh = try stack.reopened()
        let stored = try fresh.context.performAndWait {
            let fetch = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            fetch.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
            return try fresh.context.fetch(fetch).map { ($0.value(forKey: "name") as! String, $0.value(forKey: "done") as! Bool) }
        }
        #expect(stored.map(\.0) == names)
        #expect(stored.map(\.1) == (0..<150).map { $0 % 3 == 0 })
        #expect(try StoreSnapshot.integers("SELECT Z_PK FROM ZTSPITEM ORDER BY ZCREATEDAT", in: stack.url) == Array(1...150))
    }

    @Test func theDictionaryHandlerIsCalledUntilItReturnsTrue() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        var calls = 0
        var seen: [String] = []
        let entity = stack.coordinator.managedObjectModel.entitiesByName["TSPItem"]!
        let request = NSBatchInsertRequest(entity: entity, dictionaryHandler: { dictionary in
            calls += 1
            guard calls <= 3 else { return true }
            dictionary["name"] = "handled \(calls)"
            dictionary.addEntries(from: ["createdAt": BatchFixtures.start.addingTimeInterval(Double(calls)), "done": calls == 2])
            dictionary["extra"] = 1
            dictionary.removeObject(forKey: "extra")
            seen.append("\(dictionary.count) \(dictionary["name"] as? String ?? "-")")
            return false
        })
        request.resultType = .count
        #expect(try execute(request, in: stack.context).result as? Int == 3)
        #expect(calls == 4)
        // Each call gets an empty dictionary that behaves as one.
        #expect(seen == ["3 handled 1", "3 handled 2", "3 handled 3"])
        let fresh = try stack.reopened()
        let rows = try fresh.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
            return try fresh.context.fetch(request).map { "\($0.value(forKey: "name") as! String) \($0.value(forKey: "done") as! Bool)" }
        }
        #expect(rows == ["handled 1 false", "handled 2 true", "handled 3 false"])
    }

    @Test func theManagedObjectHandlerSetsValuesOnObjectsInNoContext() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        var made: [NSManagedObject] = []
        let entity = stack.coordinator.managedObjectModel.entitiesByName["TSPItem"]!
        let request = NSBatchInsertRequest(entity: entity, managedObjectHandler: { object in
            guard made.count < 2 else { return true }
            made.append(object)
            object.setValue("object \(made.count)", forKey: "name")
            return false
        })
        request.resultType = .objectIDs
        let ids = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        #expect(ids.count == 2)
        #expect(made.allSatisfy { $0.managedObjectContext == nil && $0.entity.name == "TSPItem" })
        let names = try stack.context.performAndWait {
            try ids.map { try stack.context.existingObject(with: $0).value(forKey: "name") as? String }
        }
        #expect(names == ["object 1", "object 2"])
    }

    @Test func badValuesRefuseTheWholeRequest() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(1, in: stack.context)
        let before = try StoreSnapshot.rows(of: stack.url)
        let wrongType = NSBatchInsertRequest(entityName: "TSPItem", objects: [["name": "fine"], ["name": "fine"], ["createdAt": "yesterday"]])
        let error = BatchFixtures.failure(wrongType, in: stack.context)
        #expect(error?.code == NSManagedObjectValidationError)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "createdAt")
        #expect(BatchFixtures.failure(NSBatchInsertRequest(entityName: "TSPItem", objects: [["title": "x"]]), in: stack.context)?.code == NSCoreDataError)
        var calls = 0
        let handler = NSBatchInsertRequest(entityName: "TSPItem", managedObjectHandler: { object in
            calls += 1
            object.setValue(calls == 1 ? "ok" : 42, forKey: "name")
            return calls > 5
        })
        #expect(BatchFixtures.failure(handler, in: stack.context)?.code == NSManagedObjectValidationError)
        var rows = 0
        let dictionaries = NSBatchInsertRequest(entityName: "TSPItem", dictionaryHandler: { dictionary in
            rows += 1
            dictionary["done"] = rows < 3 ? true : "not a Boolean"
            return false
        })
        #expect(BatchFixtures.failure(dictionaries, in: stack.context)?.code == NSManagedObjectValidationError)
        #expect(rows == 3)
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
    }

    @Test func relationshipsAreNotInserted() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let request = NSBatchInsertRequest(entityName: "Book", objects: [["title": "T", "author": NSNull()]])
        let error = BatchFixtures.failure(request, in: stack.context)
        #expect(error?.code == NSCoreDataError)
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZBOOK", in: stack.url) == [0])
    }

    @Test func noValidationRuns() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        // Book.title is required and at most 40 long; pages at most 5000: Core Data's batch insert
        // does not validate, so neither does this one.
        let request = NSBatchInsertRequest(entityName: "Book", objects: [["pages": 9999], ["title": String(repeating: "x", count: 50)]])
        request.resultType = .count
        #expect(try execute(request, in: stack.context).result as? Int == 2)
    }

    private func libraryWithBook(_ directory: TemporaryDirectory) throws -> TestStack {
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("Old", forKey: "title")
            book.setValue("111", forKey: "isbn")
            book.setValue(10, forKey: "pages")
            try stack.context.save()
        }
        return stack
    }

    private let incoming: [[String: Any]] = [["title": "New", "isbn": "111"], ["title": "Other", "isbn": "222", "pages": 5]]

    @Test func aBrokenUniquenessConstraintFailsUnderTheErrorPolicy() throws {
        let directory = TemporaryDirectory()
        let stack = try libraryWithBook(directory)
        let before = try StoreSnapshot.rows(of: stack.url)
        let error = BatchFixtures.failure(NSBatchInsertRequest(entityName: "Book", objects: incoming), in: stack.context)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflict = (error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])?.first
        #expect(conflict?.constraint == ["isbn"])
        #expect(conflict?.conflictingSnapshots.first?["title"] as? String == "New")
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
    }

    @Test func objectTrumpUpdatesTheExistingRowWithEveryValue() throws {
        let directory = TemporaryDirectory()
        let stack = try libraryWithBook(directory)
        stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        let request = NSBatchInsertRequest(entityName: "Book", objects: incoming + [["title": "Newer", "isbn": "111"]])
        request.resultType = .objectIDs
        let ids = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        // The existing row (key 1) is reported once; the new one took key 2, the first free key.
        #expect(ids.map(\.primaryKey) == [1, 2])
        let rows = try books(stack)
        #expect(rows["111"]?["title"] as? String == "Newer")
        #expect(rows["111"]?["pages"] is NSNull)  // the new row had no pages: Core Data writes every attribute
        #expect(rows["222"]?["title"] as? String == "Other")
        #expect(try StoreSnapshot.integers("SELECT Z_OPT FROM ZBOOK ORDER BY Z_PK", in: stack.url) == [3, 1])
        #expect(try StoreSnapshot.integers("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'", in: stack.url) == [2])
    }

    @Test func storeTrumpKeepsTheExistingRow() throws {
        let directory = TemporaryDirectory()
        let stack = try libraryWithBook(directory)
        stack.context.mergePolicy = NSMergePolicy.mergeByPropertyStoreTrump
        let request = NSBatchInsertRequest(entityName: "Book", objects: incoming)
        request.resultType = .count
        #expect(try execute(request, in: stack.context).result as? Int == 1)
        let rows = try books(stack)
        #expect(rows["111"]?["title"] as? String == "Old")
        #expect(rows["111"]?["pages"] as? Int == 10)
        #expect(rows["222"]?["pages"] as? Int == 5)
    }

    @Test func theContextIsNotTouchedAndFindsTheRowsByFetching() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let request = NSBatchInsertRequest(entityName: "TSPItem", objects: [["name": "a"], ["name": "b"]])
        request.resultType = .objectIDs
        let ids = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        let (changed, registered, found) = try stack.context.performAndWait {
            (stack.context.hasChanges, stack.context.registeredObjects.count,
             try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).map(\.objectID))
        }
        #expect(changed == false)
        #expect(registered == 0)
        #expect(found == ids)
    }

    @Test func mergingTheInsertedIDsBringsTheObjectsToObservers() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let viewer = BatchFixtures.context(stack.coordinator, "viewer")
        let recorder = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: viewer)
        let changes = viewer.changes()
        let request = NSBatchInsertRequest(entityName: "TSPItem", objects: [["name": "a"], ["name": "b"]])
        request.resultType = .objectIDs
        let ids = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: ids], into: [viewer])

        let note = try #require(recorder.notifications.first)
        let inserted = try #require(note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)
        #expect(Set(inserted.map(\.objectID)) == Set(ids))
        let names = viewer.performAndWait { inserted.map { $0.value(forKey: "name") as? String }.sorted { ($0 ?? "") < ($1 ?? "") } }
        #expect(names == ["a", "b"])
        #expect(viewer.performAndWait { viewer.hasChanges } == false)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.inserted == Set(ids))
    }
}
