import Foundation
import OpenCoreData

/// Reads the history other processes write to the store and prints what they did, in words:
/// the heart of `todo watch`.
final class ChangeFollower: @unchecked Sendable {
    // @unchecked Sendable: `token` and `names` are touched only on `context`'s queue.
    private let context: NSManagedObjectContext
    private var token: NSPersistentHistoryToken?
    /// The names of the items, kept so that a deleted one can be named.
    private var names: [NSManagedObjectID: String] = [:]

    /// Transactions with more changes than this are summarised (batch requests, populate).
    static let listedChanges = 10

    /// Where the lines go: standard output for `todo watch`.
    private let emit: @Sendable (String) -> Void

    init(store: TodoStore, emit: @escaping @Sendable (String) -> Void = Watch.emit) throws {
        self.emit = emit
        let coordinator = store.container.persistentStoreCoordinator
        context = store.container.newTodoContext()
        let context = self.context
        try context.performAndWait {
            token = coordinator.currentPersistentHistoryToken(fromStores: nil)
            for item in try context.fetch(TodoStore.itemsRequest()) { names[item.objectID] = item.title ?? "" }
            context.reset()
        }
    }

    /// Prints the changes committed since the last call, then remembers where it stopped.
    func catchUp() {
        context.performAndWait {
            do {
                let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
                let result = try context.execute(request) as? NSPersistentHistoryResult
                for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] {
                    if transaction.author != TodoStore.author { try describe(transaction) }
                    token = transaction.token
                }
            } catch {
                emit("! can't read the changes: \(error.localizedDescription)")
            }
            context.reset()
        }
    }

    private func describe(_ transaction: NSPersistentHistoryTransaction) throws {
        let changes = transaction.changes ?? []
        if changes.count > Self.listedChanges {
            try summarise(changes)
            return
        }
        for change in changes {
            let id = change.changedObjectID
            switch change.changeType {
            case .insert:
                let name = try currentName(of: id)
                names[id] = name
                emit("+ added \"\(name ?? "?")\"")
            case .update:
                guard let item = try? context.existingObject(with: id) as? TSPItem else { continue }
                names[id] = item.title ?? ""
                if change.updatedProperties?.contains(where: { $0.name == "done" }) == true {
                    emit("\(item.done ? "✓ checked" : "○ unchecked") \"\(item.title ?? "")\"")
                } else {
                    emit("~ changed \"\(item.title ?? "")\"")
                }
            case .delete:
                let name = names.removeValue(forKey: id) ?? change.tombstone?["title"] as? String
                emit("- deleted \"\(name ?? "?")\"")
            }
        }
    }

    /// One line per kind of change: how many items were added, checked, unchecked, changed, deleted.
    private func summarise(_ changes: [NSPersistentHistoryChange]) throws {
        var added: [NSManagedObjectID] = []
        var updated: [NSManagedObjectID] = []
        var deleted = 0
        for change in changes {
            switch change.changeType {
            case .insert: added.append(change.changedObjectID)
            case .update: updated.append(change.changedObjectID)
            case .delete:
                names[change.changedObjectID] = nil
                deleted += 1
            }
        }
        if !added.isEmpty {
            for item in try items(added) { names[item.objectID] = item.title ?? "" }
            emit("+ added \(Self.count(added.count))")
        }
        if !updated.isEmpty {
            let done = try items(updated).filter(\.done).count
            if done > 0 { emit("✓ checked \(Self.count(done))") }
            if updated.count > done { emit("○ unchecked \(Self.count(updated.count - done))") }
        }
        if deleted > 0 { emit("- deleted \(Self.count(deleted))") }
    }

    private static func count(_ number: Int) -> String { number == 1 ? "1 item" : "\(number) items" }

    private func currentName(of id: NSManagedObjectID) throws -> String? {
        (try? context.existingObject(with: id) as? TSPItem)?.title
    }

    private func items(_ ids: [NSManagedObjectID]) throws -> [TSPItem] {
        let request = TodoStore.itemsRequest()
        request.predicate = NSPredicate(format: "self IN %@", ids)
        return try context.fetch(request)
    }
}
