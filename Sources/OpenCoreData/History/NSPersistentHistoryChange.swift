import Foundation

/// What happened to an object in a transaction.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    case insert = 0
    case update = 1
    case delete = 2
}

/// One object's change in a transaction of the persistent history.
open class NSPersistentHistoryChange: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after the history request made it.

    /// The change's number, unique in its store.
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: NSManagedObjectID
    /// Whether the object was inserted, updated or deleted.
    public let changeType: NSPersistentHistoryChangeType
    /// For a delete: the values of the attributes the model preserves after deletion
    /// (`preservesValueInHistoryOnDeletion`) that were not nil; nil otherwise.
    public let tombstone: [AnyHashable: Any]?
    /// For an update: the properties that changed; nil for inserts and deletes.
    public let updatedProperties: Set<NSPropertyDescription>?
    /// The transaction the change belongs to, nil once it is gone: the transaction holds its
    /// changes, not they it, so keep the transaction while its changes are in use.
    public var transaction: NSPersistentHistoryTransaction? { link.transaction }

    /// The reference back, shared by the transaction's changes: a weak reference of each change's
    /// own cost a read of 100,000 changes a tenth of its time (the runtime's side table updated
    /// on each change's making and freeing).
    private var link: HistoryTransactionLink

    init(
        changeID: Int64, changedObjectID: NSManagedObjectID, changeType: NSPersistentHistoryChangeType,
        tombstone: [AnyHashable: Any]?, updatedProperties: Set<NSPropertyDescription>?, link: HistoryTransactionLink
    ) {
        self.link = link
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.tombstone = tombstone
        self.updatedProperties = updatedProperties
        super.init()
    }

    /// Makes the change one of `transaction`'s (a copy of its own transaction with some of the
    /// changes).
    func attach(to transaction: NSPersistentHistoryTransaction) { link = transaction.link }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    override open var description: String {
        "<NSPersistentHistoryChange: \(changeID); \(changedObjectID.uriRepresentation().absoluteString); type \(changeType)>"
    }
}

/// A transaction as its changes reach it: one weak reference for all of them, made with the
/// changes, before the transaction.
final class HistoryTransactionLink: @unchecked Sendable {
    // @unchecked Sendable: set once, by the transaction's initializer, before it is shared.
    weak var transaction: NSPersistentHistoryTransaction?
}
