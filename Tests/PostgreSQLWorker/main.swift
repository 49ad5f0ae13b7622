// One process of the PostgreSQL store's multi-process test (PostgreSQLMultiProcessTests): opens
// the store at a URL as an app instance would, and for some rounds inserts an item, deletes its
// previous one, and adds one to a counter every process shares (conflicting on purpose: a
// conflict is retried after a refresh); meanwhile it merges the others' changes from the
// persistent history that remote change notifications announce. At the end it prints what its
// context holds, for the test to compare with the database.
import Foundation
import OpenCoreData

#if PostgreSQL
import OpenCoreDataPostgreSQL

/// The items and the shared counter.
func model() -> NSManagedObjectModel {
    func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        return attribute
    }
    let item = NSEntityDescription()
    item.name = "Item"
    item.properties = [attribute("name", .stringAttributeType), attribute("owner", .integer64AttributeType)]
    let counter = NSEntityDescription()
    counter.name = "Counter"
    counter.properties = [attribute("value", .integer64AttributeType)]
    let model = NSManagedObjectModel()
    model.entities = [item, counter]
    return model
}

/// Counts the remote change notifications the coordinator posts.
final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var total: Int { lock.withLock { count } }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

/// The worker, in a function: top-level variables would belong to the main actor.
func work() {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3, let url = URL(string: arguments[2]) else { fail("usage: postgresql-worker setup|run URL [worker rounds workers]") }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
    do {
        try coordinator.addPersistentStore(
            type: .postgreSQL, at: url,
            options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true, NSPersistentHistoryTrackingKey: true])
    } catch {
        fail("can't open the store: \(error)")
    }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator

    if arguments[1] == "setup" {
        do {
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context).setValue(0, forKey: "value")
                try context.save()
            }
        } catch {
            fail("setup failed: \(error)")
        }
        exit(0)
    }

    guard arguments.count == 6, let worker = Int(arguments[3]), let rounds = Int(arguments[4]), let workers = Int(arguments[5]) else {
        fail("usage: postgresql-worker run URL worker rounds workers")
    }
    let me = "worker-\(worker)"
    context.transactionAuthor = me
    let heard = Heard()
    let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { _ in heard.add() }
    var lastToken = coordinator.currentPersistentHistoryToken(fromStores: nil)
    var othersSeen = Set<String>()
    var conflicts = 0

    /// Merges the transactions since the last one merged into the context.
    func mergeHistory() throws {
        try context.performAndWait {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
            guard let result = try context.execute(request) as? NSPersistentHistoryResult,
                let transactions = result.result as? [NSPersistentHistoryTransaction]
            else { return }
            for transaction in transactions {
                if let author = transaction.author, author != me { othersSeen.insert(author) }
                context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                lastToken = transaction.token
            }
        }
    }

    func items(_ format: String, _ arguments: [Any] = []) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        return try context.fetch(request)
    }

    do {
        let counter = try context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter"))[0] }
        for round in 1...rounds {
            try context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("\(me)-\(round)", forKey: "name")
                item.setValue(worker, forKey: "owner")
                for old in try items("name == %@", ["\(me)-\(round - 1)"]) { context.delete(old) }
                try context.save()
            }
            var added = false
            while !added {
                try context.performAndWait {
                    counter.setValue((counter.value(forKey: "value") as? Int64 ?? 0) + 1, forKey: "value")
                    do {
                        try context.save()
                        added = true
                    } catch let error as NSError where error.code == NSManagedObjectMergeError {
                        // Another process saved the counter first: take its value and add again.
                        conflicts += 1
                        context.rollback()
                        context.refresh(counter, mergeChanges: false)
                    }
                }
            }
            try mergeHistory()
        }
        // Done: a marker, then wait for every worker's, merging what they wrote.
        try context.performAndWait {
            let marker = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            marker.setValue("done-\(worker)", forKey: "name")
            marker.setValue(0, forKey: "owner")
            try context.save()
        }
        let deadline = Date().addingTimeInterval(120)
        while try context.performAndWait({ try items("owner == 0").count }) < workers {
            guard Date() < deadline else { fail("the other workers did not finish") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        // The last notifications may still be on their way: merge until the counter shows every round.
        let expected = Int64(rounds * workers)
        while context.performAndWait({ counter.value(forKey: "value") as? Int64 }) != expected {
            guard Date() < deadline else { break }
            try mergeHistory()
            Thread.sleep(forTimeInterval: 0.05)
        }
        let view: [String: Any] = try context.performAndWait {
            [
                "worker": worker, "conflicts": conflicts, "notifications": heard.total, "othersSeen": othersSeen.sorted(),
                // The registered counter, as merges left it (not fetched again).
                "counter": counter.value(forKey: "value") as? Int64 ?? -1,
                "items": try items("owner != 0").compactMap { $0.value(forKey: "name") as? String }.sorted(),
            ]
        }
        NotificationCenter.default.removeObserver(observer)
        print(String(decoding: try JSONSerialization.data(withJSONObject: view, options: [.sortedKeys]), as: UTF8.self))
    } catch {
        fail("\(me) failed: \(error)")
    }
}

work()
#else
FileHandle.standardError.write(Data("postgresql-worker: built without the PostgreSQL trait\n".utf8))
exit(1)
#endif
