import Foundation
import Testing
@testable import OpenCoreData

/// Batch requests bypass contexts but not the history: each records one transaction of the rows
/// it inserted, updated or deleted (deleted rows with their tombstones), so that other contexts
/// and processes can merge them; on the SQLite and the PostgreSQL store alike.
@Suite struct BatchHistoryTests {
    private func changes(_ context: NSManagedObjectContext, after token: NSPersistentHistoryToken?) throws -> [NSPersistentHistoryChange] {
        let transactions = try HistoryTrackingTests.transactions(context, .fetchHistory(after: token))
        #expect(transactions.count == 1)
        // A batch request's transaction is signed by the context that ran it.
        #expect(transactions.first?.author == context.transactionAuthor)
        #expect(transactions.first?.contextName == context.name)
        return transactions.first?.changes ?? []
    }

    static let stores: [ConformanceStore] = [.sqlite, .postgreSQL]

    @Test(arguments: stores)
    func batchInsertUpdateAndDeleteEachRecordATransaction(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory, kind: kind)
        let context = stack.context
        context.transactionAuthor = "batcher"
        context.name = "importer"
        try context.performAndWait {
            var token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
            let names = ["a", "b", "c", "d"]
            var index = 0
            let insert = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { row in
                guard index < names.count else { return true }
                row["name"] = names[index]
                row["done"] = index % 2 == 0
                index += 1
                return false
            })
            insert.resultType = .objectIDs
            let inserted = try #require((try context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
            let insertChanges = try changes(context, after: token)
            #expect(insertChanges.map(\.changeType) == Array(repeating: .insert, count: 4))
            #expect(insertChanges.map(\.changedObjectID) == inserted)
            token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)

            let update = NSBatchUpdateRequest(entityName: "Item")
            update.predicate = NSPredicate(format: "done == NO")
            update.propertiesToUpdate = ["done": true]
            update.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 2)
            let updateChanges = try changes(context, after: token)
            #expect(updateChanges.map(\.changeType) == [.update, .update])
            #expect(Set(updateChanges.map(\.changedObjectID)) == [inserted[1], inserted[3]])
            #expect(updateChanges.allSatisfy { $0.updatedProperties?.map(\.name) == ["done"] })
            token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)

            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
            delete.fetchRequest.predicate = NSPredicate(format: "name IN %@", ["a", "c"])
            _ = try context.execute(delete)
            let deleteChanges = try changes(context, after: token)
            #expect(deleteChanges.map(\.changeType) == [.delete, .delete])
            #expect(Set(deleteChanges.compactMap { $0.tombstone?["name"] as? String }) == ["a", "c"])
        }
    }

    /// A batch delete that follows relationships records the cascaded rows (each with its
    /// tombstone) and the to-ones it cleared.
    @Test(arguments: stores)
    func aCascadingBatchDeleteRecordsEveryRowItTouched(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let model = TestModels.library()
        for (entity, key) in [("Author", "name"), ("Book", "title")] {
            (model.entitiesByName[entity]?.propertiesByName[key] as? NSAttributeDescription)?.preservesValueInHistoryOnDeletion = true
        }
        let stack = try HistoryTrackingTests.stack(directory, model: model, kind: kind)
        let context = stack.context
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Ann", forKey: "name")
            for title in ["One", "Two"] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue(title, forKey: "title")
                book.setValue(100, forKey: "pages")
                book.setValue(author, forKey: "author")
            }
            try context.save()
            let token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Author"))
            _ = try context.execute(delete)
            let changes = try changes(context, after: token)
            let deleted = changes.filter { $0.changeType == .delete }.map { $0.changedObjectID.entity.name! }
            #expect(deleted.sorted() == ["Author", "Book", "Book"])
            let preserved = changes.filter { $0.changeType == .delete }.compactMap { ($0.tombstone?["name"] ?? $0.tombstone?["title"]) as? String }
            #expect(preserved.sorted() == ["Ann", "One", "Two"])
        }
    }

    /// A batch update over a hierarchy records one change per row it updated, each with its own
    /// entity and the properties set, numbered after the changes already kept; one that updates
    /// nothing records no transaction.
    @Test(arguments: stores)
    func aBatchUpdateRecordsEachUpdatedRowOfTheHierarchy(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory, model: BatchFixtures.vehicles(), kind: kind)
        let context = stack.context
        try context.performAndWait {
            for (entity, name, wheels) in [("Vehicle", "bike", 2), ("Vehicle", "car", 4), ("Truck", "lorry", 18), ("Truck", "van", 6)] {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                object.setValue(name, forKey: "name")
                object.setValue(wheels, forKey: "wheels")
            }
            try context.save()
            let saved = try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
            let lastSavedChange = try #require(saved.flatMap { $0.changes ?? [] }.map(\.changeID).max())
            // With the saved history gone, new changes still number after it: a change ID is
            // never given twice.
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture))
            var token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)

            let update = NSBatchUpdateRequest(entityName: "Vehicle")
            update.predicate = NSPredicate(format: "wheels < 10")
            update.propertiesToUpdate = ["wheels": 10]
            update.resultType = .updatedObjectIDsResultType
            let ids = try #require((try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
            let changes = try changes(context, after: token)
            #expect(changes.count == 3)
            #expect(Set(changes.map(\.changedObjectID)) == Set(ids))
            #expect(changes.map { $0.changedObjectID.entity.name! }.sorted() == ["Truck", "Vehicle", "Vehicle"])
            #expect(changes.allSatisfy { $0.changeType == .update && $0.updatedProperties?.map(\.name) == ["wheels"] })
            #expect(Set(changes.map(\.changeID)).count == 3)
            #expect(changes.allSatisfy { $0.changeID > lastSavedChange })

            token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
            update.predicate = NSPredicate(format: "wheels > 100")
            update.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 0)
            #expect(try HistoryTrackingTests.transactions(context, .fetchHistory(after: token)).isEmpty)
        }
    }

    /// A batch update chosen through a to-many relationship records each updated row once,
    /// however many related rows matched.
    @Test(arguments: stores)
    func aBatchUpdateThroughAToManyRecordsEachRowOnce(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory, model: TestModels.library(), kind: kind)
        let context = stack.context
        try context.performAndWait {
            for (name, pages) in [("Ann", [120, 300]), ("Bob", [20])] {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue(name, forKey: "name")
                for (index, count) in pages.enumerated() {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue("\(name) \(index)", forKey: "title")
                    book.setValue(count, forKey: "pages")
                    book.setValue(author, forKey: "author")
                }
            }
            try context.save()
            let token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
            let update = NSBatchUpdateRequest(entityName: "Author")
            update.predicate = NSPredicate(format: "ANY books.pages > 100")
            update.propertiesToUpdate = ["name": "Prolific"]
            update.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 1)
            let changes = try changes(context, after: token)
            #expect(changes.count == 1)
            #expect(changes.first?.updatedProperties?.map(\.name) == ["name"])
            let author = try #require(changes.first.map { try context.existingObject(with: $0.changedObjectID) })
            // A batch update leaves registered objects as they were, until refreshed.
            context.refresh(author, mergeChanges: false)
            #expect(author.value(forKey: "name") as? String == "Prolific")
        }
    }
}
