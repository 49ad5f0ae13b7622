import Foundation
import Testing
@testable import OpenCoreData

@Suite struct BatchUpdateRequestTests {
    private func execute(_ request: NSBatchUpdateRequest, in context: NSManagedObjectContext) throws -> NSBatchUpdateResult {
        try context.performAndWait { try context.execute(request) as! NSBatchUpdateResult }
    }

    @Test func updatesTheMatchingRowsWithOneUpdateAndRaisesTheirVersion() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(10, in: stack.context)
        let recorder = StatementRecorder(stack.store)

        let request = NSBatchUpdateRequest(entityName: "TSPItem")
        request.predicate = NSPredicate(format: "done == NO")
        request.propertiesToUpdate = ["done": true]
        request.resultType = .updatedObjectsCountResultType
        let result = try execute(request, in: stack.context)

        #expect(result.resultType == .updatedObjectsCountResultType)
        #expect(result.result as? Int == 5)
        let writes = recorder.all.filter { !$0.hasPrefix("SELECT") && !$0.hasPrefix("BEGIN") && !$0.hasPrefix("COMMIT") }
        #expect(writes.count == 1)
        #expect(writes.first?.hasPrefix("UPDATE ZTSPITEM SET ZDONE = ?, Z_OPT = Z_OPT + 1 WHERE") == true)
        #expect(try StoreSnapshot.integers("SELECT ZDONE FROM ZTSPITEM ORDER BY Z_PK", in: stack.url) == Array(repeating: 1, count: 10))
        // The odd items were updated: their version went from 1 to 2; the even ones stayed.
        #expect(try StoreSnapshot.integers("SELECT Z_OPT FROM ZTSPITEM ORDER BY Z_PK", in: stack.url) == (0..<10).map { $0 % 2 == 0 ? 1 : 2 })
        #expect(ids.count == 10)
    }

    @Test func theContextIsNotTouched() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(4, in: stack.context)
        let item = stack.context.performAndWait {
            let item = stack.context.object(with: ids[1])
            _ = item.value(forKey: "done")
            return item
        }
        let registeredBefore = stack.context.performAndWait { stack.context.registeredObjects.count }
        let request = NSBatchUpdateRequest(entityName: "TSPItem")
        request.propertiesToUpdate = ["done": true, "name": "renamed"]
        _ = try execute(request, in: stack.context)
        let (done, name, changed, registered) = stack.context.performAndWait {
            (item.value(forKey: "done") as? Bool, item.value(forKey: "name") as? String, stack.context.hasChanges, stack.context.registeredObjects.count)
        }
        #expect(done == false)
        #expect(name == "Item 1")
        #expect(changed == false)
        #expect(registered == registeredBefore)
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZTSPITEM WHERE ZNAME = 'renamed' AND ZDONE = 1", in: stack.url) == [4])
    }

    @Test func eachResultTypeGivesItsResult() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(6, in: stack.context)
        let request = NSBatchUpdateRequest(entity: stack.coordinator.managedObjectModel.entitiesByName["TSPItem"]!)
        request.predicate = NSPredicate(format: "name IN %@", ["Item 1", "Item 4"])
        request.propertiesToUpdate = ["name": NSExpression(forConstantValue: "picked")]

        let status = try execute(request, in: stack.context)
        #expect(status.resultType == .statusOnlyResultType)
        #expect(status.result as? Bool == true)

        request.predicate = NSPredicate(format: "name == 'picked'")
        request.resultType = .updatedObjectIDsResultType
        let returned = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        #expect(Set(returned) == [ids[1], ids[4]])
        #expect(returned.allSatisfy { $0.entity.name == "TSPItem" && !$0.isTemporaryID })

        request.predicate = NSPredicate(format: "name == 'nothing'")
        request.resultType = .updatedObjectsCountResultType
        let count = try execute(request, in: stack.context).result as? NSNumber
        #expect(count == 0)
    }

    @Test func expressionsComputeFromTheRowsOwnAttributes() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            for (title, pages) in [("A", 10), ("B", 20), ("C", 5000)] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                book.setValue(title, forKey: "title")
                book.setValue(pages, forKey: "pages")
            }
            try stack.context.save()
        }
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.propertiesToUpdate = [
            "pages": NSExpression(format: "pages + 1"),
            // A key given as its property description, as Core Data allows.
            stack.coordinator.managedObjectModel.entitiesByName["Book"]!.propertiesByName["isbn"]!: NSExpression(forKeyPath: "title"),
        ]
        _ = try execute(request, in: stack.context)
        // No validation, as in Core Data: 5001 is over Book.pages' maximum of 5000, and written.
        #expect(try StoreSnapshot.integers("SELECT ZPAGES FROM ZBOOK ORDER BY Z_PK", in: stack.url) == [11, 21, 5001])
        let fresh = try stack.reopened()
        let values = try fresh.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try fresh.context.fetch(request).map { $0.value(forKey: "isbn") as? String }
        }
        #expect(values == ["A", "B", "C"])
    }

    @Test func doneBecomesNotDoneWithAConditional() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(6, in: stack.context)
        let request = NSBatchUpdateRequest(entityName: "TSPItem")
        request.propertiesToUpdate = ["done": NSExpression(format: "TERNARY(done == YES, NO, YES)")]
        _ = try execute(request, in: stack.context)
        #expect(try StoreSnapshot.integers("SELECT ZDONE FROM ZTSPITEM ORDER BY Z_PK", in: stack.url) == [0, 1, 0, 1, 0, 1])

        request.propertiesToUpdate = [
            "done": NSExpression(
                forConditional: NSPredicate(format: "done == NO"), trueExpression: NSExpression(forConstantValue: true),
                falseExpression: NSExpression(forConstantValue: false))
        ]
        _ = try execute(request, in: stack.context)
        #expect(try StoreSnapshot.integers("SELECT ZDONE FROM ZTSPITEM ORDER BY Z_PK", in: stack.url) == [1, 0, 1, 0, 1, 0])
    }

    @Test func rowIndependentExpressionsAreComputedOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(3, in: stack.context)
        let before = Date()
        let request = NSBatchUpdateRequest(entityName: "TSPItem")
        request.propertiesToUpdate = ["createdAt": NSExpression(forFunction: "now", arguments: []), "name": NSNull()]
        _ = try execute(request, in: stack.context)
        let fresh = try stack.reopened()
        let (dates, names) = try fresh.context.performAndWait {
            let items = try fresh.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            return (Set(items.compactMap { $0.value(forKey: "createdAt") as? Date }), items.map { $0.value(forKey: "name") as? String })
        }
        #expect(dates.count == 1)
        #expect(dates.first.map { $0 >= before.addingTimeInterval(-1) && $0 <= Date() } == true)
        #expect(names == [nil, nil, nil])
    }

    @Test func aPredicateThroughRelationshipsChoosesTheRows() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            for (name, titles) in [("Ann", ["A1", "A2"]), ("Bob", ["B1"])] {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
                author.setValue(name, forKey: "name")
                for title in titles {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                    book.setValue(title, forKey: "title")
                    book.setValue(author, forKey: "author")
                }
            }
            try stack.context.save()
        }
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.predicate = NSPredicate(format: "author.name == %@", "Ann")
        request.propertiesToUpdate = ["pages": 100]
        request.resultType = .updatedObjectsCountResultType
        #expect(try execute(request, in: stack.context).result as? Int == 2)
        #expect(try StoreSnapshot.integers("SELECT COALESCE(ZPAGES, 0) FROM ZBOOK ORDER BY ZTITLE", in: stack.url) == [100, 100, 0])

        // Through a to-many relationship: authors with more than one book.
        let authors = NSBatchUpdateRequest(entityName: "Author")
        authors.predicate = NSPredicate(format: "books.@count > 1")
        authors.propertiesToUpdate = ["name": "prolific"]
        authors.resultType = .updatedObjectsCountResultType
        #expect(try execute(authors, in: stack.context).result as? Int == 1)
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZAUTHOR WHERE ZNAME = 'prolific'", in: stack.url) == [1])
    }

    @Test func subentitiesAreUpdatedUnlessExcluded() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: BatchFixtures.vehicles(), directory: directory)
        try stack.context.performAndWait {
            for (entity, name) in [("Vehicle", "bike"), ("Truck", "lorry"), ("Vehicle", "car")] {
                NSEntityDescription.insertNewObject(forEntityName: entity, into: stack.context).setValue(name, forKey: "name")
            }
            try stack.context.save()
        }
        let request = NSBatchUpdateRequest(entityName: "Vehicle")
        request.propertiesToUpdate = ["wheels": 4]
        request.resultType = .updatedObjectIDsResultType
        let all = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        #expect(all.map { $0.entity.name! }.sorted() == ["Truck", "Vehicle", "Vehicle"])

        request.includesSubentities = false
        request.propertiesToUpdate = ["wheels": 2]
        let own = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        #expect(own.map { $0.entity.name! } == ["Vehicle", "Vehicle"])
        #expect(try StoreSnapshot.integers("SELECT ZWHEELS FROM ZVEHICLE ORDER BY Z_PK", in: stack.url) == [2, 4, 2])
    }

    @Test func anObjectHeldWithTheOldVersionConflictsOnItsNextSave() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(2, in: stack.context)
        let item = stack.context.performAndWait {
            let item = stack.context.object(with: ids[1])
            _ = item.value(forKey: "done")
            return item
        }
        let request = NSBatchUpdateRequest(entityName: "TSPItem")
        request.propertiesToUpdate = ["done": true]
        _ = try execute(request, in: stack.context)
        let before = try StoreSnapshot.rows(of: stack.url)

        stack.context.performAndWait { item.setValue("edited", forKey: "name") }
        let error = stack.context.saveError()
        #expect(error?.code == NSManagedObjectMergeError)
        let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
        #expect(conflicts?.first?.sourceObject === item)
        #expect(conflicts?.first?.newVersionNumber == 2)
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
    }

    @Test func mergeChangesFromRemoteContextSaveRefreshesHeldObjects() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(4, in: stack.context)
        let viewer = BatchFixtures.context(stack.coordinator, "viewer")
        let held = viewer.performAndWait {
            ids.map { id in
                let item = viewer.object(with: id)
                _ = item.value(forKey: "done")
                return item
            }
        }
        let changes = viewer.changes()
        let recorder = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: viewer)

        let request = NSBatchUpdateRequest(entityName: "TSPItem")
        request.predicate = NSPredicate(format: "done == NO")
        request.propertiesToUpdate = ["done": true]
        request.resultType = .updatedObjectIDsResultType
        let updated = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: updated], into: [viewer])

        let done = viewer.performAndWait { held.map { $0.value(forKey: "done") as? Bool } }
        #expect(done == [true, true, true, true])
        let note = try #require(recorder.notifications.first)
        let refreshed = note.userInfo?[NSRefreshedObjectsKey] as? Set<NSManagedObject>
        #expect(refreshed.map { Set($0.map(\.objectID)) } == [ids[1], ids[3]])
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.refreshed == [ids[1], ids[3]])
        #expect(change?.saved == false)
        // The merged objects carry the new version: saving them again does not conflict.
        try viewer.performAndWait {
            held[1].setValue("edited", forKey: "name")
            try viewer.save()
        }
    }

    @Test func aValueOfTheWrongTypeIsRefusedBeforeAnythingIsWritten() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("T", forKey: "title")
            try stack.context.save()
        }
        let before = try StoreSnapshot.rows(of: stack.url)
        let cases: [([AnyHashable: Any], Int)] = [
            (["title": 12, "isbn": "fine"], NSManagedObjectValidationError),
            (["pages": "many"], NSManagedObjectValidationError),
            (["pages": NSExpression(forKeyPath: "title")], NSManagedObjectValidationError),
            (["title": NSExpression(format: "pages * 2")], NSManagedObjectValidationError),
            (["nope": 1], NSCoreDataError),
            (["author": NSNull()], NSCoreDataError),
            (["title": NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "title")])], NSPersistentStoreUnsupportedRequestTypeError),
            (["title": NSExpression(forKeyPath: "author.name")], NSPersistentStoreUnsupportedRequestTypeError),
            ([:], NSCoreDataError),
        ]
        for (properties, code) in cases {
            let request = NSBatchUpdateRequest(entityName: "Book")
            request.propertiesToUpdate = properties
            let error = stack.context.performAndWait { () -> NSError? in
                do {
                    _ = try stack.context.execute(request)
                    return nil
                } catch {
                    return error as NSError
                }
            }
            #expect(error?.code == code, "\(properties)")
            #expect(try StoreSnapshot.rows(of: stack.url) == before)
        }
    }
}
