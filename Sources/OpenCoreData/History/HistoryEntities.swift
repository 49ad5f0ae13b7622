import Foundation

/// The entities of the persistent history, for fetch requests that select transactions or changes
/// by predicate: `NSPersistentHistoryTransaction.entityDescription` and
/// `NSPersistentHistoryChange.entityDescription`, named as Apple's ancillary model names them.
enum HistoryEntities {
    static let transaction: NSEntityDescription = entity("TRANSACTION", [
        ("author", .stringAttributeType), ("bundleID", .stringAttributeType), ("contextName", .stringAttributeType),
        ("processID", .stringAttributeType), ("timestamp", .dateAttributeType), ("transactionNumber", .integer64AttributeType),
    ])

    static let change: NSEntityDescription = entity("CHANGE", [
        ("changeID", .integer64AttributeType), ("changeType", .integer16AttributeType),
        ("changedEntity", .undefinedAttributeType), ("changedObjectID", .objectIDAttributeType),
        ("transaction", .undefinedAttributeType),
    ])

    private static func entity(_ name: String, _ attributes: [(String, NSAttributeType)]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = attributes.map { name, type in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        return entity
    }

    /// A transaction's values by the keys a predicate may name.
    static func values(of transaction: NSPersistentHistoryTransaction) -> [String: Any] {
        var values: [String: Any] = [
            "bundleID": transaction.bundleID, "processID": transaction.processID, "timestamp": transaction.timestamp,
            "transactionNumber": transaction.transactionNumber,
        ]
        values["author"] = transaction.author
        values["contextName"] = transaction.contextName
        return values
    }

    /// A change's values by the keys a predicate may name; `transaction.author` reaches its transaction's.
    static func values(of change: NSPersistentHistoryChange, in transaction: [String: Any]) -> [String: Any] {
        [
            "changeID": change.changeID, "changeType": change.changeType.rawValue, "changedEntity": change.changedObjectID.entity,
            "changedObjectID": change.changedObjectID, "transaction": transaction,
        ]
    }
}

extension NSPersistentHistoryTransaction {
    /// The entity of transactions, for a fetch request given to
    /// `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`.
    public class var entityDescription: NSEntityDescription? { HistoryEntities.transaction }

    /// The entity of transactions in a context's stores (the same in every context).
    ///
    /// - Parameter context: A context whose stores keep history.
    /// - Returns: The entity.
    public class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? {
        HistoryEntities.transaction
    }

    /// A new fetch request on the transactions' entity.
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.transaction
        return request
    }
}

extension NSPersistentHistoryChange {
    /// The entity of changes, for a fetch request given to
    /// `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`.
    public class var entityDescription: NSEntityDescription? { HistoryEntities.change }

    /// The entity of changes in a context's stores (the same in every context).
    ///
    /// - Parameter context: A context whose stores keep history.
    /// - Returns: The entity.
    public class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? {
        HistoryEntities.change
    }

    /// A new fetch request on the changes' entity.
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.change
        return request
    }
}
