import Foundation
import OpenCoreData
import Testing

/// Two processes on one store, each following the other through remote change notifications and
/// persistent history: this test process (a coordinator whose context merges the others'
/// transactions) and `todo` commands, with `todo watch` reporting what this process writes.
@Suite struct TwoProcessHistoryTests {
    /// The `todo` program's own model, read from its source folder.
    static func model() throws -> NSManagedObjectModel {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            folder = folder.deletingLastPathComponent()
        }
        return try NSManagedObjectModel(validatingContentsOf: folder.appendingPathComponent("Sources/todo/Done.xcdatamodeld"))
    }

    /// Merges into `context` every transaction another author commits, as the notifications come.
    final class Follower: @unchecked Sendable {
        // @unchecked Sendable: `token` is touched on the context's queue only.
        let context: NSManagedObjectContext
        private var token: NSPersistentHistoryToken?
        private var observer: NSObjectProtocol?

        init(_ context: NSManagedObjectContext, coordinator: NSPersistentStoreCoordinator) {
            self.context = context
            token = coordinator.currentPersistentHistoryToken(fromStores: nil)
            observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) {
                [weak self] _ in self?.merge()
            }
        }

        deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

        private func merge() {
            context.performAndWait {
                let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
                guard let result = try? context.execute(request) as? NSPersistentHistoryResult else { return }
                for transaction in result.result as? [NSPersistentHistoryTransaction] ?? [] {
                    if transaction.author != context.transactionAuthor {
                        context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                    }
                    token = transaction.token
                }
            }
        }
    }

    /// Waits until `condition`, checked on the context's queue, holds; false after `timeout`.
    private func eventually(_ context: NSManagedObjectContext, timeout: TimeInterval = 20, _ condition: @escaping () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if context.performAndWait(condition) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// The values of the items `context` holds, by name: no fetch, so an item is there only once
    /// a merge registered it (as a fault, filled from the store on first read), and an object
    /// already filled shows a change only once a merge refreshed it.
    private func held(_ context: NSManagedObjectContext) -> [String: Bool] {
        context.performAndWait {
            var values: [String: Bool] = [:]
            for object in context.registeredObjects where !object.isDeleted {
                if let name = object.value(forKey: "title") as? String { values[name] = object.value(forKey: "done") as? Bool ?? false }
            }
            return values
        }
    }

    @Test func eachProcessSeesTheOthersSavesBatchUpdatesAndDeletesFor20Rounds() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("add", "seed")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(
            type: .sqlite, at: sandbox.store,
            options: [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "tests"
        // Everything in memory: what the merges bring is what the checks read. The context keeps
        // what it registers (its registry holds objects weakly otherwise, as Core Data's does,
        // and the objects a merge registers would go at once).
        context.retainsRegisteredObjects = true
        try context.performAndWait {
            for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) { item.willAccessValue(forKey: nil) }
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).map { $0.value(forKey: "title") }
        }
        let follower = Follower(context, coordinator: coordinator)
        let watcher = try sandbox.startTodo(["watch", "--store", sandbox.store.path])
        defer { watcher.interrupt(); _ = try? watcher.finish() }
        func watched(_ line: String) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let text = (try? String(contentsOf: watcher.outURL, encoding: .utf8)) ?? ""
                if text.split(separator: "\n").contains(where: { $0 == line }) { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return false
        }
        #expect(watched("Watching \(sandbox.store.path); press Ctrl-C to stop."))

        for round in 1...20 {
            // The other process saves: an insert, then a check through the object.
            let added = try sandbox.run("add", "b\(round)")
            #expect(added.status == 0)
            let id = try #require(added.lines.first?.split(separator: " ").dropFirst().first.map(String.init))
            #expect(eventually(context) { self.held(context)["b\(round)"] == false }, "round \(round): insert merged")
            #expect(try sandbox.run("check", id).status == 0)
            #expect(eventually(context) { self.held(context)["b\(round)"] == true }, "round \(round): update merged")

            // This process saves; the other sees it.
            try context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("a\(round)", forKey: "title")
                item.setValue(Date(), forKey: "createdAt")
                try context.save()
            }
            #expect(watched("+ added \"a\(round)\""), "round \(round): watcher saw the save")

            if round % 5 == 0, round < 20 {
                // The other process's batch update and batch delete reach this context.
                #expect(try sandbox.run("check-all").status == 0)
                #expect(eventually(context) { self.held(context).values.allSatisfy { $0 } }, "round \(round): batch update merged")
                #expect(try sandbox.run("clear-done").status == 0)
                #expect(eventually(context) { self.held(context).isEmpty }, "round \(round): batch delete merged")
            }
            if round % 4 == 0 {
                // This process's batch update reaches the other.
                try context.performAndWait {
                    let update = NSBatchUpdateRequest(entityName: "TSPItem")
                    update.predicate = NSPredicate(format: "title == %@", "a\(round)")
                    update.propertiesToUpdate = ["done": true]
                    update.resultType = .updatedObjectIDsResultType
                    let ids = (try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
                    NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
                }
                #expect(watched("✓ checked \"a\(round)\""), "round \(round): watcher saw the batch update")
            }
        }

        // Every object this context holds has the values the store holds.
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        let stored: [String: Bool] = try fresh.performAndWait {
            var values: [String: Bool] = [:]
            for item in try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) {
                values[item.value(forKey: "title") as! String] = item.value(forKey: "done") as? Bool ?? false
            }
            return values
        }
        #expect(held(context) == stored)
        // b16…b20 and a16…a20, after round 15's clear-done.
        #expect(stored.count == 10)
        withExtendedLifetime(follower) {}
    }
}
