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
}
