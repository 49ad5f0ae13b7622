import Foundation

/// Persistent history as stores keep it and hand it up, in store-neutral terms: what a store
/// that tracks history writes with each save or batch request, and what it reads back. The
/// context turns these into `NSPersistentHistoryTransaction`s; the SQLite store keeps them in
/// Apple's `ATRANSACTION`/`ACHANGE` tables (docs/compatibility.md, "Persistent history").

/// One change of a transaction as a store read it.
package struct HistoryChangeRecord {
    /// The change's own number (`ACHANGE.Z_PK`): `NSPersistentHistoryChange.changeID`.
    var changeID: Int64
    /// The store's number of the changed object's own entity (not its root's).
    var entityNumber: Int32
    var primaryKey: Int64
    var changeType: NSPersistentHistoryChangeType
    /// For an update: which properties changed, in Apple's bitmap (`HistoryColumnBitmap`).
    var columns: Data?
    /// For a delete: the preserved attributes' values by name, as the store keeps them.
    var tombstone: [String: Any]?

    package init(changeID: Int64, entityNumber: Int32, primaryKey: Int64, changeType: NSPersistentHistoryChangeType, columns: Data? = nil, tombstone: [String: Any]? = nil) {
        self.changeID = changeID
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
        self.changeType = changeType
        self.columns = columns
        self.tombstone = tombstone
    }
}

/// One transaction (a save or a batch request) as a store read it.
package struct HistoryTransactionRecord {
    /// The transaction's number (`ATRANSACTION.Z_PK`), which its token carries.
    package var number: Int64
    var timestamp: Date
    var author: String?
    var bundleID: String?
    var processID: String?
    var contextName: String?

    package init(number: Int64, timestamp: Date, author: String? = nil, bundleID: String? = nil, processID: String? = nil, contextName: String? = nil) {
        self.number = number
        self.timestamp = timestamp
        self.author = author
        self.bundleID = bundleID
        self.processID = processID
        self.contextName = contextName
    }
}

/// Which transactions a history request selects.
package enum HistoryBoundary {
    /// Every transaction.
    case all
    /// Transactions numbered above this one (a token's or a transaction's number).
    case afterNumber(Int64)
    /// Transactions made after this date.
    case afterDate(Date)
    /// Transactions numbered below this one.
    case beforeNumber(Int64)
    /// Transactions made before this date.
    case beforeDate(Date)
}

/// What a store writes for one transaction: who made it, and the objects it changed.
package struct HistoryTransactionDraft {
    package var author: String?
    package var contextName: String?
    package var changes: [HistoryChangeDraft] = []

    package init(author: String? = nil, contextName: String? = nil, changes: [HistoryChangeDraft] = []) {
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }
}

/// Who runs a batch request, for its transaction: the executing context's author and name.
package struct HistoryAuthor {
    package var author: String?
    package var contextName: String?

    init() {}

    init(of context: NSManagedObjectContext) {
        author = context.transactionAuthor
        contextName = context.name
    }
}

/// One object a transaction changed, as the store writing it describes it.
package struct HistoryChangeDraft {
    package var entity: NSEntityDescription
    package var primaryKey: Int64
    package var changeType: NSPersistentHistoryChangeType
    /// For an update: the slots whose values changed; nil when not known (all of them).
    package var changedSlots: [Int]?

    package init(entity: NSEntityDescription, primaryKey: Int64, changeType: NSPersistentHistoryChangeType, changedSlots: [Int]? = nil) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.changeType = changeType
        self.changedSlots = changedSlots
    }
}

/// Who writes: the process's bundle identifier and name, as Apple records them.
package enum HistoryProcess {
    /// Apple records the app's bundle identifier; a command-line program on Linux has none, so
    /// its name stands in (docs/compatibility.md).
    package static let bundleID: String = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    /// The process's name, not its number, as Apple's `processID` holds.
    package static let processName: String = ProcessInfo.processInfo.processName
}
