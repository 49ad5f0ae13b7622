import Foundation
import Testing
@testable import OpenCoreData

@Suite struct BatchDeleteRequestTests {
    private func execute(_ request: NSBatchDeleteRequest, in context: NSManagedObjectContext) throws -> NSBatchDeleteResult {
        try context.performAndWait { try context.execute(request) as! NSBatchDeleteResult }
    }

    @Test func deletesWhatTheFetchRequestMatchesInOneStatement() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(10, in: stack.context)
        let recorder = StatementRecorder(stack.store)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "TSPItem")
        fetch.predicate = NSPredicate(format: "done == YES")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeObjectIDs

        let result = try execute(request, in: stack.context)
        #expect(result.resultType == .resultTypeObjectIDs)
        let deleted = try #require(result.result as? [NSManagedObjectID])
        #expect(Set(deleted) == Set(stride(from: 0, to: 10, by: 2).map { ids[$0] }))
        let writes = recorder.all.filter { !$0.hasPrefix("SELECT") && !$0.hasPrefix("BEGIN") && !$0.hasPrefix("COMMIT") }
        #expect(writes == ["DELETE FROM ZTSPITEM WHERE ZTSPITEM.ZDONE = ? RETURNING Z_PK"])
        #expect(try StoreSnapshot.integers("SELECT Z_PK FROM ZTSPITEM ORDER BY Z_PK", in: stack.url) == [2, 4, 6, 8, 10])
    }

    @Test func statusAndCountResults() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(5, in: stack.context)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "TSPItem")
        fetch.predicate = NSPredicate(format: "name == 'Item 3'")
        let status = try execute(NSBatchDeleteRequest(fetchRequest: fetch), in: stack.context)
        #expect(status.resultType == .resultTypeStatusOnly)
        #expect(status.result as? Bool == true)
        let all = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "TSPItem"))
        all.resultType = .resultTypeCount
        #expect(try execute(all, in: stack.context).result as? Int == 4)
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZTSPITEM", in: stack.url) == [0])
    }

    @Test func sortedLimitedFetchDeletesTheFirstRowsOnly() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(6, in: stack.context)
        let fetch = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetch.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
        fetch.fetchLimit = 2
        // A fetch request of another result type: OpenCoreData's generic initializer takes it.
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeCount
        #expect(try execute(request, in: stack.context).result as? Int == 2)
        #expect(try StoreSnapshot.integers("SELECT Z_PK FROM ZTSPITEM ORDER BY Z_PK", in: stack.url) == [1, 2, 3, 4])
    }

    @Test func objectIDsOfOneEntityAreDeleted() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(5, in: stack.context)
        let request = NSBatchDeleteRequest(objectIDs: [ids[0], ids[3]])
        request.resultType = .resultTypeObjectIDs
        #expect(try execute(request, in: stack.context).result as? [NSManagedObjectID] == [ids[0], ids[3]])
        #expect(try StoreSnapshot.integers("SELECT Z_PK FROM ZTSPITEM ORDER BY Z_PK", in: stack.url) == [2, 3, 5])
        let none = NSBatchDeleteRequest(objectIDs: [])
        none.resultType = .resultTypeCount
        #expect(try execute(none, in: stack.context).result as? Int == 0)
    }

    @Test func objectIDsOfSeveralEntitiesOrUnsavedObjectsAreRefused() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let (author, book, unsaved) = try stack.context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("T", forKey: "title")
            try stack.context.save()
            let unsaved = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            return (author.objectID, book.objectID, unsaved.objectID)
        }
        let before = try StoreSnapshot.rows(of: stack.url)
        #expect(BatchFixtures.failure(NSBatchDeleteRequest(objectIDs: [book, author]), in: stack.context)?.code == NSCoreDataError)
        #expect(BatchFixtures.failure(NSBatchDeleteRequest(objectIDs: [book, unsaved]), in: stack.context)?.code == NSCoreDataError)
        #expect(try StoreSnapshot.rows(of: stack.url) == before)
    }

    @Test func cascadeDeletesDestinationsAndTheirJoinRows() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let (ann, bob) = try stack.context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
            tag.setValue("novel", forKey: "label")
            var authors: [NSManagedObject] = []
            for (name, count) in [("Ann", 2), ("Bob", 1)] {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
                author.setValue(name, forKey: "name")
                for i in 0..<count {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                    book.setValue("\(name) \(i)", forKey: "title")
                    book.setValue(author, forKey: "author")
                    book.mutableSetValue(forKey: "tags").add(tag)
                }
                authors.append(author)
            }
            try stack.context.save()
            return (authors[0].objectID, authors[1].objectID)
        }
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Author")
        fetch.predicate = NSPredicate(format: "name == 'Ann'")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeObjectIDs
        let deleted = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        #expect(deleted.count == 3)
        #expect(deleted.contains(ann))
        #expect(deleted.filter { $0.entity.name == "Book" }.count == 2)

        #expect(try StoreSnapshot.integers("SELECT Z_PK FROM ZAUTHOR", in: stack.url) == [bob.primaryKey])
        #expect(try StoreSnapshot.integers("SELECT ZAUTHOR FROM ZBOOK", in: stack.url) == [bob.primaryKey])
        // The tag stays, joined only to Bob's book.
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZTAG", in: stack.url) == [1])
        let joined = try StoreSnapshot.integers("SELECT COUNT(*) FROM Z_2TAGS", in: stack.url)
        #expect(joined == [1])
        let fresh = try stack.reopened()
        let titles = try fresh.context.performAndWait {
            let tag = try fresh.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))[0]
            return (tag.value(forKey: "books") as! Set<NSManagedObject>).map { $0.value(forKey: "title") as! String }
        }
        #expect(titles == ["Bob 0"])
    }

    @Test func toOneColumnsPointingAtDeletedRowsAreCleared() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: BatchFixtures.company(), directory: directory)
        try stack.context.performAndWait {
            let department = NSEntityDescription.insertNewObject(forEntityName: "Department", into: stack.context)
            department.setValue("R&D", forKey: "name")
            let boss = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: stack.context)
            boss.setValue("Boss", forKey: "name")
            for name in ["Eve", "Dan"] {
                let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: stack.context)
                employee.setValue(name, forKey: "name")
                employee.setValue(department, forKey: "department")
                employee.setValue(boss, forKey: "manager")
            }
            try stack.context.save()
        }
        let departments = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Department"))
        departments.resultType = .resultTypeCount
        #expect(try execute(departments, in: stack.context).result as? Int == 1)
        let bosses = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        bosses.predicate = NSPredicate(format: "name == 'Boss'")
        _ = try execute(NSBatchDeleteRequest(fetchRequest: bosses), in: stack.context)

        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZDEPARTMENT IS NULL AND ZMANAGER IS NULL", in: stack.url) == [2])
        // Each survivor lost two references, each raising its version once.
        #expect(try StoreSnapshot.integers("SELECT Z_OPT FROM ZEMPLOYEE", in: stack.url) == [3, 3])
        let fresh = try stack.reopened()
        let (employees, departmentCount) = try fresh.context.performAndWait {
            let employees = try fresh.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
            return (
                employees.map { $0.value(forKey: "department") == nil && $0.value(forKey: "manager") == nil },
                try fresh.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Department")))
        }
        #expect(employees == [true, true])
        #expect(departmentCount == 0)
    }

    @Test func aDenyRuleRefusesTheWholeRequest() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            for (name, books) in [("Busy", 1), ("Idle", 0)] {
                let publisher = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: stack.context)
                publisher.setValue(name, forKey: "name")
                for _ in 0..<books {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                    book.setValue("T", forKey: "title")
                    book.setValue(publisher, forKey: "publisher")
                }
            }
            try stack.context.save()
        }
        let before = try StoreSnapshot.rows(of: stack.url)
        let error = BatchFixtures.failure(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Publisher")), in: stack.context)
        #expect(error?.code == NSValidationRelationshipDeniedDeleteError)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "books")
        #expect(try StoreSnapshot.rows(of: stack.url) == before)

        let idle = NSFetchRequest<NSFetchRequestResult>(entityName: "Publisher")
        idle.predicate = NSPredicate(format: "books.@count == 0")
        let request = NSBatchDeleteRequest(fetchRequest: idle)
        request.resultType = .resultTypeCount
        #expect(try execute(request, in: stack.context).result as? Int == 1)
    }

    @Test func mergingTheDeletedIDsRemovesTheObjectsFromAContext() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let ids = try BatchFixtures.saveItems(4, in: stack.context)
        let viewer = BatchFixtures.context(stack.coordinator, "viewer")
        let held = viewer.performAndWait { ids.map { viewer.object(with: $0) } }
        let recorder = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: viewer)

        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "TSPItem")
        fetch.predicate = NSPredicate(format: "done == YES")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeObjectIDs
        let deleted = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [viewer])

        let (registered, count) = try viewer.performAndWait {
            (ids.map { viewer.registeredObject(for: $0) != nil }, try viewer.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")))
        }
        #expect(registered == [false, true, false, true])
        #expect(held[0].managedObjectContext == nil)
        #expect(count == 2)
        let note = try #require(recorder.notifications.first)
        let removed = note.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject>
        #expect(removed.map { Set($0.map(\.objectID)) } == [ids[0], ids[2]])
    }

    @Test func subentitiesAreDeletedUnlessExcluded() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: BatchFixtures.vehicles(), directory: directory)
        try stack.context.performAndWait {
            for (entity, name) in [("Vehicle", "bike"), ("Truck", "lorry"), ("Truck", "van"), ("Vehicle", "car")] {
                NSEntityDescription.insertNewObject(forEntityName: entity, into: stack.context).setValue(name, forKey: "name")
            }
            try stack.context.save()
        }
        let own = NSFetchRequest<NSFetchRequestResult>(entityName: "Vehicle")
        own.includesSubentities = false
        own.predicate = NSPredicate(format: "name != 'car'")
        let request = NSBatchDeleteRequest(fetchRequest: own)
        request.resultType = .resultTypeObjectIDs
        let deleted = try #require(try execute(request, in: stack.context).result as? [NSManagedObjectID])
        #expect(deleted.map { $0.entity.name! } == ["Vehicle"])
        let all = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Vehicle"))
        all.resultType = .resultTypeObjectIDs
        let rest = try #require(try execute(all, in: stack.context).result as? [NSManagedObjectID])
        #expect(rest.map { $0.entity.name! }.sorted() == ["Truck", "Truck", "Vehicle"])
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZVEHICLE", in: stack.url) == [0])
    }
}
