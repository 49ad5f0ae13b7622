import Foundation

/// Persistent history as stores keep it and hand it up, in store-neutral terms: what a store
/// that tracks history writes with each save or batch request, and what it reads back. The
/// context turns these into `NSPersistentHistoryTransaction`s; the SQLite store keeps them in
/// Apple's `ATRANSACTION`/`ACHANGE` tables (docs/compatibility.md, "Persistent history").

/// One change of a transaction as a store read it.
struct HistoryChangeRecord {
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
}

/// One transaction (a save or a batch request) as a store read it.
struct HistoryTransactionRecord {
    /// The transaction's number (`ATRANSACTION.Z_PK`), which its token carries.
    var number: Int64
    var timestamp: Date
    var author: String?
    var bundleID: String?
    var processID: String?
    var contextName: String?
}

/// Which transactions a history request selects.
enum HistoryBoundary {
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
struct HistoryTransactionDraft {
    var author: String?
    var contextName: String?
    var changes: [HistoryChangeDraft] = []
}

/// Who runs a batch request, for its transaction: the executing context's author and name.
struct HistoryAuthor {
    var author: String?
    var contextName: String?

    init() {}

    init(of context: NSManagedObjectContext) {
        author = context.transactionAuthor
        contextName = context.name
    }
}

/// One object a transaction changed, as the store writing it describes it.
struct HistoryChangeDraft {
    var entity: NSEntityDescription
    var primaryKey: Int64
    var changeType: NSPersistentHistoryChangeType
    /// For an update: the slots whose values changed; nil when not known (all of them).
    var changedSlots: [Int]?
}

/// Who writes: the process's bundle identifier and name, as Apple records them.
enum HistoryProcess {
    /// Apple records the app's bundle identifier; a command-line program on Linux has none, so
    /// its name stands in (docs/compatibility.md).
    static let bundleID: String = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    /// The process's name, not its number, as Apple's `processID` holds.
    static let processName: String = ProcessInfo.processInfo.processName
}
