import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Tokens, the boundaries of history fetches and deletes, result types and expired tokens.
@Suite struct HistoryRequestTests {
    /// Three saves of one item each; returns their transactions.
    private func threeSaves(_ stack: HistoryTrackingTests.Stack) throws -> [NSPersistentHistoryTransaction] {
        let context = stack.context
        return try context.performAndWait {
            for name in ["a", "b", "c"] {
                NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(name, forKey: "name")
                try context.save()
                // Distinct timestamps for the date boundaries.
                Thread.sleep(forTimeInterval: 0.01)
            }
            return try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
        }
    }

    @Test func aTokenSurvivesArchivingAndComparesByItsNumbers() throws {
        let token = NSPersistentHistoryToken(storeTokens: ["4F49429F-3853-4978-9A43-AE28A1B644AE": 7])
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data))
        #expect(decoded == token)
        #expect(decoded.hash == token.hash)
        #expect(decoded != NSPersistentHistoryToken(storeTokens: ["4F49429F-3853-4978-9A43-AE28A1B644AE": 8]))
        #expect(token.description == "<NSPersistentHistoryToken - { \"4F49429F-3853-4978-9A43-AE28A1B644AE\" = 7; }>")
        // The numbers sit under Apple's key.
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        #expect(root is NSPersistentHistoryToken)
    }

    @Test func fetchBoundariesFollowTokensTransactionsAndDates() throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory)
        let all = try threeSaves(stack)
        #expect(all.map(\.transactionNumber) == [1, 2, 3])
        let context = stack.context
        try context.performAndWait {
            func numbers(_ request: NSPersistentHistoryChangeRequest) throws -> [Int64] {
                try HistoryTrackingTests.transactions(context, request).map(\.transactionNumber)
            }
            #expect(try numbers(.fetchHistory(after: all[0].token)) == [2, 3])
            #expect(try numbers(.fetchHistory(after: all[2].token)) == [])
            #expect(try numbers(.fetchHistory(after: all[1])) == [3])
            #expect(try numbers(.fetchHistory(after: nil as NSPersistentHistoryTransaction?)) == [1, 2, 3])
            #expect(try numbers(.fetchHistory(after: all[0].timestamp)) == [2, 3])
            #expect(try numbers(.fetchHistory(after: Date.distantPast)) == [1, 2, 3])
            let current = try #require(stack.coordinator.currentPersistentHistoryToken(fromStores: [stack.store]))
            #expect(try numbers(.fetchHistory(after: current)) == [])

            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: all[0].token)
            request.resultType = .count
            #expect((try context.execute(request) as? NSPersistentHistoryResult)?.result as? NSNumber == 2)
            request.resultType = .transactionsOnly
            let bare = try HistoryTrackingTests.transactions(context, request)
            #expect(bare.count == 2 && bare.allSatisfy { $0.changes == nil })
            request.resultType = .changesOnly
            let changes = (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryChange]
            #expect(changes?.map(\.changeType) == [.insert, .insert])
            request.resultType = .objectIDs
            let ids = (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSManagedObjectID]
            #expect(ids?.count == 2)
            request.resultType = .statusOnly
            #expect((try context.execute(request) as? NSPersistentHistoryResult)?.result as? NSNumber == true)
        }
    }

    /// A fetch of every transaction reads the change table in key order; a fetch of some reads
    /// them through the transaction index: both give each transaction its own changes, in order.
    @Test func everyTransactionAndSomeOfThemGetTheSameChanges() throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory)
        let context = stack.context
        try context.performAndWait {
            var saved: [[NSManagedObjectID]] = []
            var earlier: NSManagedObject?
            for round in 0..<3 {
                let items = (0..<3).map { index in
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    item.setValue("\(round)-\(index)", forKey: "name")
                    return item
                }
                earlier?.setValue("renamed \(round)", forKey: "name")
                try context.save()
                saved.append(items.map(\.objectID) + (earlier.map { [$0.objectID] } ?? []))
                earlier = items[0]
            }
            func changes(_ request: NSPersistentHistoryChangeRequest) throws -> [[NSPersistentHistoryChange]] {
                try HistoryTrackingTests.transactions(context, request).map { $0.changes ?? [] }
            }
            let all = try changes(.fetchHistory(after: nil as NSPersistentHistoryToken?))
            #expect(all.map { $0.map(\.changedObjectID) } == saved)
            // A change leads back to its transaction while the transaction is kept, and to none after.
            var transactions = try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
            let kept = transactions.flatMap { $0.changes ?? [] }
            #expect(transactions.allSatisfy { transaction in transaction.changes?.allSatisfy { $0.transaction === transaction } == true })
            transactions.removeAll()
            #expect(kept.count == 11 && kept.allSatisfy { $0.transaction == nil })
            #expect(all.allSatisfy { $0.map(\.changeID) == $0.map(\.changeID).sorted() })
            let first = try #require(HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).first)
            let later = try changes(.fetchHistory(after: first.token))
            #expect(later.map { $0.map(\.changeID) } == all.dropFirst().map { $0.map(\.changeID) })
            #expect(later.map { $0.map(\.changeType) } == [[.insert, .insert, .insert, .update], [.insert, .insert, .insert, .update]])
        }
    }

    @Test func deletingBeforeATransactionKeepsItAndATokenBeforeTheGapExpires() throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory)
        let all = try threeSaves(stack)
        let context = stack.context
        try context.performAndWait {
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: all[1]))
            let left = try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
            #expect(left.map(\.transactionNumber) == [2, 3])
            // After transaction 1 comes 2, still there: the token is valid.
            #expect(try HistoryTrackingTests.transactions(context, .fetchHistory(after: all[0].token)).count == 2)

            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: all[2].token))
            #expect(try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).map(\.transactionNumber) == [3])
            do {
                _ = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: all[0].token))
                Issue.record("A token before deleted history was accepted")
            } catch let error as NSError {
                #expect(error.code == NSPersistentHistoryTokenExpiredError)
            }

            // Everything goes; the interned names stay, and numbering goes on.
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture))
            #expect(try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).isEmpty)
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("d", forKey: "name")
            try context.save()
            let next = try HistoryTrackingTests.transactions(context, .fetchHistory(after: all[2].token))
            #expect(next.map(\.transactionNumber) == [4])
            // Nil deletes nothing.
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: nil as NSPersistentHistoryToken?))
            #expect(try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)).count == 1)
        }
    }

    /// The loop apps write to merge what other processes and contexts saved, skipping their own.
    @Test func mergingOtherAuthorsHistoryBringsTheirChangesIntoAContext() throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory)
        let viewContext = stack.context
        viewContext.transactionAuthor = "app"
        let importer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        importer.persistentStoreCoordinator = stack.coordinator
        importer.transactionAuthor = "importer"

        var lastToken: NSPersistentHistoryToken?
        let milkID: NSManagedObjectID = try viewContext.performAndWait {
            let milk = NSEntityDescription.insertNewObject(forEntityName: "Item", into: viewContext)
            milk.setValue("Milk", forKey: "name")
            try viewContext.save()
            lastToken = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
            return milk.objectID
        }
        try importer.performAndWait {
            try importer.existingObject(with: milkID).setValue(true, forKey: "done")
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: importer).setValue("Bread", forKey: "name")
            try importer.save()
        }
        try viewContext.performAndWait {
            let transactions = try HistoryTrackingTests.transactions(viewContext, .fetchHistory(after: lastToken))
            for transaction in transactions where transaction.author != viewContext.transactionAuthor {
                viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                lastToken = transaction.token
            }
            #expect(transactions.count == 1)
            #expect(try viewContext.existingObject(with: milkID).value(forKey: "done") as? Bool == true)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            #expect(Set(try viewContext.fetch(request).compactMap { $0.value(forKey: "name") as? String }) == ["Milk", "Bread"])
            #expect(lastToken == transactions.last?.token)
        }
    }

    /// Apple's sample's loop with a fetch request: transactions of other authors only, and the
    /// changes of one kind (or of one entity) in their transactions.
    /// Change rows whose keys alternate between two transactions (another writer's numbering)
    /// still reach their own transactions, in key order, read whole or from a boundary.
    @Test func changesWhoseKeysAlternateBetweenTransactionsReachTheirOwn() throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory)
        let context = stack.context
        let saved: [[NSManagedObjectID]] = try context.performAndWait {
            try (0..<2).map { round in
                let items = (0..<2).map { index in
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    item.setValue("\(round)-\(index)", forKey: "name")
                    return item
                }
                try context.save()
                return items.map(\.objectID)
            }
        }
        let queue = try DatabaseQueue(path: stack.url.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE ACHANGE SET ZTRANSACTIONID = 2 WHERE Z_PK = 2")
            try db.execute(sql: "UPDATE ACHANGE SET ZTRANSACTIONID = 1 WHERE Z_PK = 3")
        }
        try queue.close()
        try context.performAndWait {
            for request in [NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?), .fetchHistory(after: Date.distantPast)] {
                let transactions = try HistoryTrackingTests.transactions(context, request)
                #expect(transactions.map { $0.changes?.map(\.changeID) ?? [] } == [[1, 3], [2, 4]])
                #expect(transactions.map { $0.changes?.map(\.changedObjectID) ?? [] } == [[saved[0][0], saved[1][0]], [saved[0][1], saved[1][1]]])
                #expect(transactions.allSatisfy { transaction in transaction.changes?.allSatisfy { $0.transaction === transaction } == true })
            }
        }
    }

    @Test func aFetchRequestOnTheHistoryEntitiesSelectsTransactionsAndChanges() throws {
        let directory = TemporaryDirectory()
        let stack = try HistoryTrackingTests.stack(directory)
        let context = stack.context
        try context.performAndWait {
            context.transactionAuthor = "app"
            let milk = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            milk.setValue("Milk", forKey: "name")
            try context.save()
            context.transactionAuthor = "importer"
            milk.setValue("Oat milk", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("Eggs", forKey: "name")
            try context.save()
            context.transactionAuthor = nil
            context.delete(milk)
            try context.save()

            let others = try #require(NSPersistentHistoryTransaction.fetchRequest)
            others.predicate = NSPredicate(format: "%K != %@", "author", "app")
            let byOthers = try HistoryTrackingTests.transactions(context, .fetchHistory(withFetch: others))
            #expect(byOthers.map(\.transactionNumber) == [2, 3])
            #expect(byOthers[0].changes?.count == 2)

            // Combined with a token, as Apple's sample does it.
            let first = try HistoryTrackingTests.transactions(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))[0]
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: first.token)
            let importer = try #require(NSPersistentHistoryTransaction.fetchRequest)
            importer.predicate = NSPredicate(format: "author == %@", "importer")
            request.fetchRequest = importer
            #expect(try HistoryTrackingTests.transactions(context, request).map(\.transactionNumber) == [2])

            let inserts = NSFetchRequest<NSFetchRequestResult>()
            inserts.entity = NSPersistentHistoryChange.entityDescription(with: context)
            inserts.predicate = NSPredicate(format: "changeType == %d", NSPersistentHistoryChangeType.insert.rawValue)
            let changes = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: inserts)
            changes.resultType = .changesOnly
            let inserted = try #require((try context.execute(changes) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryChange])
            #expect(inserted.count == 2 && inserted.allSatisfy { $0.changeType == .insert })

            let byEntityAndAuthor = try #require(NSPersistentHistoryChange.fetchRequest)
            byEntityAndAuthor.predicate = NSPredicate(
                format: "changedEntity == %@ AND transaction.author == %@ AND changeType == 1",
                stack.coordinator.managedObjectModel.entitiesByName["Item"]!, "importer")
            let updates = try HistoryTrackingTests.transactions(context, .fetchHistory(withFetch: byEntityAndAuthor))
            #expect(updates.count == 1 && updates[0].changes?.map(\.changedObjectID) == [milk.objectID])
            // The transaction holding only the selected changes is the one they lead back to.
            #expect(updates[0].changes?.first?.transaction === updates[0])
        }
    }
}
