import Foundation

/// One save or batch request in a store's persistent history, with the changes it made.
open class NSPersistentHistoryTransaction: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after the history request made it.

    /// When the transaction was committed.
    public let timestamp: Date
    /// The objects it changed; nil when the request asked for transactions only.
    public let changes: [NSPersistentHistoryChange]?
    /// The transaction's number in its store, increasing with each transaction.
    public let transactionNumber: Int64
    /// The identifier of the store it was written to.
    public let storeID: String
    /// The writing app's bundle identifier (a Linux program without one: its process name).
    public let bundleID: String
    /// The writing process's name.
    public let processID: String
    /// The `name` of the context that saved, if it had one.
    public let contextName: String?
    /// The `transactionAuthor` of the context that saved, if it had one.
    public let author: String?
    /// The token that marks the history up to and including this transaction.
    public let token: NSPersistentHistoryToken
    /// How its changes reach it.
    let link: HistoryTransactionLink

    /// - Parameter link: The link `changes` were made with.
    init(record: HistoryTransactionRecord, storeID: String, changes: [NSPersistentHistoryChange]?, link: HistoryTransactionLink) {
        self.link = link
        timestamp = record.timestamp
        transactionNumber = record.number
        self.storeID = storeID
        bundleID = record.bundleID ?? ""
        processID = record.processID ?? ""
        contextName = record.contextName
        author = record.author
        token = NSPersistentHistoryToken(transactionNumber: record.number, storeID: storeID)
        self.changes = changes
        super.init()
        link.transaction = self
    }

    /// The same transaction with other changes (some of its own, or none).
    init(copying transaction: NSPersistentHistoryTransaction, changes: [NSPersistentHistoryChange]?) {
        timestamp = transaction.timestamp
        transactionNumber = transaction.transactionNumber
        storeID = transaction.storeID
        bundleID = transaction.bundleID
        processID = transaction.processID
        contextName = transaction.contextName
        author = transaction.author
        token = transaction.token
        link = HistoryTransactionLink()
        self.changes = changes
        super.init()
        link.transaction = self
        for change in changes ?? [] { change.attach(to: self) }
    }

    /// A notification holding the IDs of the transaction's objects by kind of change, for
    /// `NSManagedObjectContext.mergeChanges(fromContextDidSave:)`.
    ///
    /// - Returns: A notification named `NSManagedObjectContextDidSaveObjectIDsNotification`, with
    ///   `inserted_objectIDs`, `updated_objectIDs` and `deleted_objectIDs` sets (each only when
    ///   not empty).
    public func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>()
        var updated = Set<NSManagedObjectID>()
        var deleted = Set<NSManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        var userInfo: [AnyHashable: Any] = [:]
        if !inserted.isEmpty { userInfo[NSInsertedObjectIDsKey] = inserted }
        if !updated.isEmpty { userInfo[NSUpdatedObjectIDsKey] = updated }
        if !deleted.isEmpty { userInfo[NSDeletedObjectIDsKey] = deleted }
        return Notification(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil, userInfo: userInfo)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    override open var description: String {
        "<NSPersistentHistoryTransaction: \(transactionNumber); \(timestamp); author \(author ?? "nil"); \(changes?.count ?? 0) changes>"
    }
}
