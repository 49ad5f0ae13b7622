import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// `NSPersistentStoreRemoteChange` on a PostgreSQL store: a commit by any coordinator connected to
/// the database reaches every coordinator that asked for the notifications, through the server
/// (LISTEN/NOTIFY), and a failed save announces nothing.
@Suite struct PostgreSQLRemoteChangeTests {
    private static let type = NSPersistentStore.StoreType(rawValue: PostgreSQLStoreInstaller.typeName)

    /// A coordinator on the store at `url` and a context on it; with `history`, history is kept
    /// and notifications carry its tokens.
    private static func open(_ url: URL, notified: Bool = true, history: Bool = false) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try coordinator.addPersistentStore(
            type: type, at: url, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: notified, NSPersistentHistoryTrackingKey: history])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    @Test func aSaveReachesEveryCoordinatorThatListens() throws {
        let server = try PostgreSQLServer.required()
        let url = server.storeURL()
        let (first, _) = try Self.open(url)
        let (second, _) = try Self.open(url)
        // A writer that did not ask for notifications still announces its commits to the others.
        let (_, writer) = try Self.open(url, notified: false)
        let firstHeard = RemoteChangeTests.Listener(first)
        let secondHeard = RemoteChangeTests.Listener(second)
        try writer.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "shared"], into: writer)
            try writer.save()
        }
        #expect(firstHeard.wait(for: 1))
        #expect(secondHeard.wait(for: 1))
        let note = try #require(firstHeard.last)
        #expect(note.object as? NSPersistentStoreCoordinator === first)
        #expect(note.userInfo?[NSStoreUUIDKey] as? String == first.persistentStores[0].identifier)
        #expect(note.userInfo?[NSPersistentStoreURLKey] as? URL == url)
        #expect(!firstHeard.cameOnMainThread)
    }

    /// A failed save between two that commit: the listener hears exactly the two commits, in
    /// order, each with its own transaction's token. Notifications arrive in commit order, so an
    /// announcement of the failed save would come before the second commit's and the tokens heard
    /// would not be those of the history; waiting for the second commit is the fence, not a clock.
    @Test func aFailedSaveAnnouncesNothing() throws {
        let server = try PostgreSQLServer.required()
        let url = server.storeURL()
        let (listening, listeningContext) = try Self.open(url, history: true)
        let heard = RemoteChangeTests.Listener(listening)
        let (_, writer) = try Self.open(url, history: true)
        try writer.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "first"], into: writer)
            try writer.save()
            ConformanceStack.insert("TSPItem", ["name": "nul\u{0}"], into: writer)
            #expect(throws: NSError.self) { try writer.save() }
            writer.rollback()
            ConformanceStack.insert("TSPItem", ["name": "second"], into: writer)
            try writer.save()
        }
        #expect(heard.wait(for: 2))
        let tokens = heard.all.prefix(2).map { $0.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken }
        let committed = try listeningContext.performAndWait {
            try HistoryTrackingTests.transactions(listeningContext, .fetchHistory(after: nil as NSPersistentHistoryToken?))
        }
        #expect(committed.count == 2)
        #expect(tokens == committed.map { Optional($0.token) })
    }

    @Test func aContainerLoadsTheStoreFromADescriptionAndHearsAnotherContainer() throws {
        let server = try PostgreSQLServer.required()
        let url = server.storeURL()
        func container() throws -> NSPersistentContainer {
            let description = NSPersistentStoreDescription(url: url)
            description.type = PostgreSQLStoreInstaller.typeName
            description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
            let container = NSPersistentContainer(name: "Shop", managedObjectModel: TestModels.todo())
            container.persistentStoreDescriptions = [description]
            var failure: (any Error)?
            container.loadPersistentStores { _, error in failure = error }
            if let failure { throw failure }
            return container
        }
        let reader = try container()
        let writer = try container()
        let heard = RemoteChangeTests.Listener(reader.persistentStoreCoordinator)
        let context = writer.newBackgroundContext()
        try context.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "from the other instance"], into: context)
            try context.save()
        }
        #expect(heard.wait(for: 1))
        let fresh = reader.newBackgroundContext()
        let names = try fresh.performAndWait {
            try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["from the other instance"])
    }

    @Test func aNotificationCarriesTheTokenOfHistoryThatMergesIntoAnotherContext() throws {
        let server = try PostgreSQLServer.required()
        let url = server.storeURL()
        let (reader, readerContext) = try Self.open(url, history: true)
        let (_, writerContext) = try Self.open(url, history: true)
        let heard = RemoteChangeTests.Listener(reader)
        let held = try readerContext.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "Milk"], into: readerContext)
            try readerContext.save()
            return try readerContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))[0]
        }
        #expect(heard.wait(for: 1))
        let before = try #require(heard.last?.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
        writerContext.transactionAuthor = "other instance"
        try writerContext.performAndWait {
            let item = try writerContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))[0]
            item.setValue("Oat milk", forKey: "name")
            ConformanceStack.insert("TSPItem", ["name": "Bread"], into: writerContext)
            try writerContext.save()
        }
        #expect(heard.wait(for: 2))
        let after = try #require(heard.last?.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
        try readerContext.performAndWait {
            let transactions = try HistoryTrackingTests.transactions(readerContext, .fetchHistory(after: before))
            #expect(transactions.count == 1)
            #expect(transactions.first?.author == "other instance")
            #expect(transactions.first?.token == after)
            #expect(Set(transactions.first?.changes?.map(\.changeType) ?? []) == [.insert, .update])
            for transaction in transactions { readerContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
            #expect(held.value(forKey: "name") as? String == "Oat milk")
        }
    }

    /// Notifications heard late: each carries the token of its own transaction, not of whatever
    /// committed last by the time it was heard, so that merging up to it is exact. The listener is
    /// held on the first notification while five more transactions commit.
    @Test func eachNotificationCarriesTheTokenOfItsOwnTransaction() throws {
        let server = try PostgreSQLServer.required()
        let url = server.storeURL()
        let options: [AnyHashable: Any] = [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true, NSPersistentHistoryTrackingKey: true]
        let reader = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try reader.addPersistentStore(type: Self.type, at: url, options: options)
        let writer = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        try writer.addPersistentStore(type: Self.type, at: url, options: [NSPersistentHistoryTrackingKey: true])
        let gate = DispatchSemaphore(value: 0)
        let firstHeard = DispatchSemaphore(value: 0)
        let allHeard = DispatchSemaphore(value: 0)
        let heard = Locked<[NSPersistentHistoryToken]>([])
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: reader, queue: nil) { note in
            let count = heard.withLock { tokens in
                if let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken { tokens.append(token) }
                return tokens.count
            }
            if count == 1 {
                firstHeard.signal()
                _ = gate.wait(timeout: .now() + 60)
            }
            if count == 6 { allHeard.signal() }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer
        func save(_ name: String) throws {
            try context.performAndWait {
                ConformanceStack.insert("TSPItem", ["name": name], into: context)
                try context.save()
            }
        }
        try save("gate")
        #expect(firstHeard.wait(timeout: .now() + 60) == .success, "the first notification is heard")
        for index in 0..<5 { try save("Item \(index)") }
        gate.signal()
        #expect(allHeard.wait(timeout: .now() + 60) == .success, "every notification is heard")

        let readerContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readerContext.persistentStoreCoordinator = reader
        let transactions = try readerContext.performAndWait {
            try HistoryTrackingTests.transactions(readerContext, .fetchHistory(after: nil as NSPersistentHistoryToken?))
        }
        #expect(transactions.count == 6)
        #expect(heard.withLock { $0 } == transactions.map(\.token))
    }
}
