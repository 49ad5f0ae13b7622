import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// The history tables as Apple's Core Data creates them, and Apple's own history read back.
@Suite struct HistorySchemaTests {
    private static var historyOptions: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    /// The DDL of the history tables and indexes, and their `Z_PRIMARYKEY` rows, of a file.
    private func historySchema(at url: URL) throws -> (ddl: [String], keys: [String]) {
        let queue = try DatabaseQueue(path: url.path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        return try queue.read { db in
            let ddl = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name")
            let keys = try String.fetchAll(
                db, sql: "SELECT Z_ENT || '|' || Z_NAME || '|' || Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
            return (ddl, keys)
        }
    }

    @Test func aStoreCreatedWithHistoryHasApplesHistoryTablesIndexesAndKeys() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("History.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SampleModel2.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.historyOptions)
        try coordinator.remove(coordinator.persistentStores[0])
        let ours = try historySchema(at: url)
        let apples = try historySchema(at: Fixtures.url("SampleModel2/SampleModel2_V2.sqlite"))
        #expect(ours.ddl.count == 11)
        #expect(ours.ddl == apples.ddl)
        #expect(ours.keys == ["16001|CHANGE|0", "16002|TRANSACTION|0", "16003|TRANSACTIONSTRING|0"])
        #expect(ours.keys == apples.keys)
    }

    @Test func preservedAttributesGetOneTombstoneColumnEachForTheEntityWithTheMost() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Tombstones.sqlite")
        let model = TestModels.todo()
        for name in ["name", "createdAt"] {
            (model.entitiesByName["TSPItem"]!.propertiesByName[name] as! NSAttributeDescription).preservesValueInHistoryOnDeletion = true
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.historyOptions)
        try coordinator.remove(coordinator.persistentStores[0])
        let ddl = try historySchema(at: url).ddl
        #expect(ddl.contains { $0.hasPrefix("CREATE TABLE ACHANGE") && $0.hasSuffix("ZCOLUMNS BLOB, ZTOMBSTONE0 BLOB, ZTOMBSTONE1 BLOB )") })
    }

    @Test func addingTheKeyToAnExistingStoreAddsTheTables() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.coordinator.remove(stack.store)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: stack.url, options: Self.historyOptions)
        #expect(NSPersistentStoreCoordinator.historyIfTracked(store) != nil)
        try coordinator.remove(store)
        #expect(try historySchema(at: stack.url).ddl.count == 11)
    }

    /// Apple's store: one transaction (an XCTest run's) of 126 inserts, numbered by Apple's
    /// entity numbers (Book 1, GraphicNovel 2, Feedback 3, Page 4, Author 6).
    @Test func applesHistoryReadsBackItsTransactionAndEveryChange() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("SampleModel2_V2.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url("SampleModel2/SampleModel2_V2.sqlite"), to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SampleModel2.model())
        let options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true, NSIgnorePersistentStoreVersioningOption: true]
        let store = try coordinator.addPersistentStore(type: .sqlite, at: copy, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
            let transactions = try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
            #expect(transactions.count == 1)
            let transaction = try #require(transactions.first)
            #expect(transaction.transactionNumber == 1)
            #expect(transaction.bundleID == "com.apple.dt.xctest.tool")
            #expect(transaction.processID == "xctest")
            #expect(transaction.author == nil && transaction.contextName == nil)
            #expect(transaction.storeID == store.identifier)
            #expect(transaction.token == NSPersistentHistoryToken(transactionNumber: 1, storeID: store.identifier))
            #expect(abs(transaction.timestamp.timeIntervalSinceReferenceDate - 737057651.681977) < 0.001)
            let changes = try #require(transaction.changes)
            #expect(changes.count == 126)
            #expect(changes.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil && $0.tombstone == nil })
            #expect(changes.map(\.changeID) == Array(1...126))
            var byEntity: [String: Int] = [:]
            for change in changes { byEntity[change.changedObjectID.entity.name!, default: 0] += 1 }
            #expect(byEntity == ["Book": 2, "GraphicNovel": 1, "Feedback": 3, "Page": 119, "Author": 1])
            let first = try #require(changes.first)
            #expect(first.changedObjectID.entity.name == "Page")
            #expect(first.changedObjectID.uriRepresentation().lastPathComponent == "p75")
            // Every change names a row that exists.
            for change in changes {
                #expect(try context.existingObject(with: change.changedObjectID).objectID == change.changedObjectID)
            }
            #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == transaction.token)
        }
    }
}
