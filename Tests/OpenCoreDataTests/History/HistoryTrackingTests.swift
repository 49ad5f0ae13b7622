import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Saves recorded as transactions and changes, read back through `NSPersistentHistoryChangeRequest`.
@Suite struct HistoryTrackingTests {
    /// Items whose name is preserved after deletion; a unique code makes a save fail in the store.
    static func model() -> NSManagedObjectModel {
        let name = TestModels.attribute("name", .stringAttributeType)
        name.preservesValueInHistoryOnDeletion = true
        let item = TestModels.entity("Item", [
            name, TestModels.attribute("done", .booleanAttributeType, defaultValue: false),
            TestModels.attribute("code", .stringAttributeType),
        ])
        item.uniquenessConstraints = [["code"]]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    struct Stack {
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        let context: NSManagedObjectContext
        let url: URL
    }

    /// - Parameter kind: The store: a file in `directory`, or a schema on the PostgreSQL server.
    static func stack(
        _ directory: TemporaryDirectory, history: Bool = true, model: NSManagedObjectModel = model(), kind: ConformanceStore = .sqlite
    ) throws -> Stack {
        let url = kind == .postgreSQL ? try PostgreSQLServer.required().storeURL() : directory.file("History.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: kind.type, at: url, options: [NSPersistentHistoryTrackingKey: history])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return Stack(coordinator: coordinator, store: store, context: context, url: url)
    }

    static func transactions(_ context: NSManagedObjectContext, _ request: NSPersistentHistoryChangeRequest) throws -> [NSPersistentHistoryTransaction] {
        let result = try context.execute(request) as? NSPersistentHistoryResult
        return try #require(result?.result as? [NSPersistentHistoryTransaction])
    }

    @Test func eachSaveRecordsItsTransactionWithOneChangePerObject() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.stack(directory)
        let context = stack.context
        context.transactionAuthor = "app"
        context.name = "editor"
        let tokens = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification, object: context)
        try context.performAndWait {
            let milk = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            milk.setValue("Milk", forKey: "name")
            let eggs = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            eggs.setValue("Eggs", forKey: "name")
            try context.save()
            milk.setValue(true, forKey: "done")
            try context.save()
            context.delete(eggs)
            try context.save()

            let transactions = try Self.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
            #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
            #expect(transactions.allSatisfy { $0.author == "app" && $0.contextName == "editor" && $0.storeID == stack.store.identifier })
            #expect(transactions.allSatisfy { $0.processID == ProcessInfo.processInfo.processName && !$0.bundleID.isEmpty })
            #expect(transactions.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert, .insert], [.update], [.delete]])
            #expect(transactions[0].changes?.map(\.changedObjectID) == [milk.objectID, eggs.objectID])
            let update = try #require(transactions[1].changes?.first)
            #expect(update.changedObjectID == milk.objectID)
            #expect(update.updatedProperties?.map(\.name) == ["done"])
            #expect(update.tombstone == nil)
            let delete = try #require(transactions[2].changes?.first)
            #expect(delete.changedObjectID == eggs.objectID)
            #expect(delete.tombstone?["name"] as? String == "Eggs")
            #expect(delete.updatedProperties == nil)
            #expect(transactions.map(\.timestamp) == transactions.map(\.timestamp).sorted())
            // The did-save notification carries the token of the transaction the save wrote.
            let saved = tokens.notifications.compactMap { $0.userInfo?["newChangeToken"] as? NSPersistentHistoryToken }
            #expect(saved == transactions.map(\.token))
            #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == transactions.last?.token)
        }
    }

    /// A save of many objects of several entities records every insert, each with its own
    /// object, besides the updates of the same save, numbered without gaps or repeats.
    @Test func aLargeSaveRecordsEveryInsertOfEveryEntity() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.stack(directory, model: TestModels.library())
        let context = stack.context
        try context.performAndWait {
            let first = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            first.setValue("First", forKey: "name")
            try context.save()
            var inserted: [NSManagedObject] = []
            for index in 0..<50 {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("Author \(index)", forKey: "name")
                inserted.append(author)
                if index < 40 {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue("Book \(index)", forKey: "title")
                    book.setValue(author, forKey: "author")
                    inserted.append(book)
                }
            }
            first.setValue("Renamed", forKey: "name")
            try context.save()

            let transactions = try Self.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
            #expect(transactions.count == 2)
            let changes = transactions.last?.changes ?? []
            let inserts = changes.filter { $0.changeType == .insert }
            #expect(inserts.count == 90)
            #expect(Set(inserts.map(\.changedObjectID)) == Set(inserted.map(\.objectID)))
            #expect(inserts.filter { $0.changedObjectID.entity.name == "Book" }.count == 40)
            #expect(changes.filter { $0.changeType == .update }.map(\.changedObjectID) == [first.objectID])
            let numbers = (transactions.first?.changes ?? []).map(\.changeID) + changes.map(\.changeID)
            #expect(numbers.sorted() == Array(numbers.min()!...numbers.max()!))
        }
    }

    /// A large save's changes continue the keys `Z_PRIMARYKEY` gave out, whatever the table holds:
    /// after every change row was deleted, and with a stray row far past them (a store some other
    /// writer left behind); no row but the changes is left in `ACHANGE`.
    @Test func aLargeSaveNumbersItsChangesFromTheKeysTakenWhateverTheTableHolds() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.stack(directory)
        let context = stack.context
        func saveItems(_ count: Int) throws -> [NSPersistentHistoryChange] {
            let token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
            for index in 0..<count {
                NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("Item \(index)", forKey: "name")
            }
            try context.save()
            return try Self.transactions(context, .fetchHistory(after: token)).flatMap { $0.changes ?? [] }
        }
        try context.performAndWait {
            #expect(try saveItems(40).map(\.changeID) == Array(1...40))
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture))
            let afterDeletion = try saveItems(40)
            #expect(afterDeletion.map(\.changeID) == Array(41...80))
            #expect(afterDeletion.allSatisfy { $0.changeType == .insert })
        }
        let queue = try DatabaseQueue(path: stack.url.path)
        try queue.write { db in
            #expect(try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ACHANGE ORDER BY Z_PK") == Array(41...80))
            try db.execute(sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (1000, 16001, 0, 1, 999, 999)")
        }
        try queue.close()
        try context.performAndWait {
            let pastStray = try saveItems(40)
            #expect(pastStray.map(\.changeID) == Array(81...120))
            #expect(Set(pastStray.map(\.changedObjectID)).count == 40)
        }
    }

    @Test func theRowsAreApplesRowsWithInternedNames() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.stack(directory)
        stack.context.transactionAuthor = "importer"
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context).setValue("Milk", forKey: "name")
            try stack.context.save()
        }
        try stack.coordinator.remove(stack.store)
        let queue = try DatabaseQueue(path: stack.url.path)
        try queue.read { db in
            let transaction = try #require(try Row.fetchOne(db, sql: "SELECT * FROM ATRANSACTION"))
            #expect(transaction["Z_ENT"] as Int64? == 16002)
            #expect(transaction["Z_OPT"] as Int64? == nil)
            #expect(transaction["ZAUTHOR"] as String? == nil)
            let author: Int64 = try #require(transaction["ZAUTHORTS"])
            #expect(try String.fetchOne(db, sql: "SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = ?", arguments: [author]) == "importer")
            let change = try #require(try Row.fetchOne(db, sql: "SELECT * FROM ACHANGE"))
            #expect(change["Z_ENT"] as Int64? == 16001)
            #expect(change["ZCHANGETYPE"] as Int64? == 0)
            #expect(change["ZENTITY"] as Int64? == 1)
            #expect(change["ZENTITYPK"] as Int64? == 1)
            #expect(change["ZTRANSACTIONID"] as Int64? == 1)
            #expect(change["ZCOLUMNS"] as Data? == nil)
            #expect(try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001") == 1)
            #expect(try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") == 1)
        }
    }

    @Test func aSaveThatFailsInTheStoreLeavesNoHistory() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.stack(directory)
        let context = stack.context
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("A", forKey: "code")
            try context.save()
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("B", forKey: "code")
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("A", forKey: "code")
            #expect(throws: NSError.self) { try context.save() }
            let transactions = try Self.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
            #expect(transactions.count == 1)
            #expect(transactions.first?.changes?.count == 1)
            #expect(try stack.coordinator.history(of: stack.store).lastHistoryNumber() == 1)
        }
    }

    @Test func aStoreWithoutTheKeyRefusesHistoryRequestsWith134091() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.stack(directory, history: false)
        stack.context.performAndWait {
            #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
            do {
                _ = try stack.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast))
                Issue.record("A history request ran on a store without history")
            } catch let error as NSError {
                #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
            }
        }
    }

    @Test func aStoreWithHistoryOpenedWithoutTheKeyIsReadOnly() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.stack(directory)
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context).setValue("Milk", forKey: "name")
            try stack.context.save()
        }
        try stack.coordinator.remove(stack.store)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: stack.url)
        #expect(store.isReadOnly)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("Eggs", forKey: "name")
            do {
                try context.save()
                Issue.record("A store with history saved without recording it")
            } catch let error as NSError {
                #expect(error.code == NSPersistentStoreSaveError)
            }
        }
    }
}
