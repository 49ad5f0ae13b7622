import Foundation

/// What a history request returns.
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// Whether the request succeeded (an `NSNumber` holding a Bool).
    case statusOnly = 0
    /// The IDs of the objects the selected transactions changed.
    case objectIDs = 1
    /// The number of selected transactions.
    case count = 2
    /// The transactions, without their changes.
    case transactionsOnly = 3
    /// The changes of the selected transactions, oldest first.
    case changesOnly = 4
    /// The transactions, each with its changes.
    case transactionsAndChanges = 5
}

/// The result of an `NSPersistentHistoryChangeRequest`.
open class NSPersistentHistoryResult: NSPersistentStoreResult, @unchecked Sendable {
    // @unchecked Sendable: immutable after the request made it.

    /// What the request asked for: an `NSNumber`, `[NSManagedObjectID]`,
    /// `[NSPersistentHistoryTransaction]` or `[NSPersistentHistoryChange]`.
    public let result: Any?
    /// The kind of `result`.
    public let resultType: NSPersistentHistoryResultType

    init(result: Any?, resultType: NSPersistentHistoryResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}

/// Reads or deletes a store's persistent history (stores added with
/// `NSPersistentHistoryTrackingKey`). Run it with `NSManagedObjectContext.execute(_:)`.
///
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
/// ```
public final class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest, @unchecked Sendable {
    // @unchecked Sendable: configured before it runs, as Core Data's requests are.

    enum Operation {
        case fetch
        case delete
    }

    /// Which transactions the request selects, before it is resolved for each store.
    enum Selection {
        case all
        case afterDate(Date)
        case afterToken(NSPersistentHistoryToken)
        case afterTransaction(number: Int64, storeID: String)
        case beforeDate(Date)
        case beforeToken(NSPersistentHistoryToken)
        case beforeTransaction(number: Int64, storeID: String)
        case none
    }

    let operation: Operation
    let selection: Selection
    /// The token the request was made with, if any.
    public let token: NSPersistentHistoryToken?
    /// A fetch request on `NSPersistentHistoryTransaction.entityDescription` or
    /// `NSPersistentHistoryChange.entityDescription` whose predicate narrows what a fetch returns:
    /// the transactions it matches, or the changes it matches (in their transactions). Its sort
    /// descriptors and limits are ignored, as Core Data ignores them: history comes oldest first.
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>?
    /// What `execute(_:)` returns; `.transactionsAndChanges` unless set.
    public var resultType: NSPersistentHistoryResultType = .transactionsAndChanges

    init(operation: Operation, selection: Selection, token: NSPersistentHistoryToken? = nil) {
        self.operation = operation
        self.selection = selection
        self.token = token
        super.init()
    }

    /// Transactions made after `date`, oldest first.
    ///
    /// - Parameter date: Transactions with a later timestamp are returned.
    /// - Returns: The request.
    public class func fetchHistory(after date: Date) -> Self {
        Self(operation: .fetch, selection: .afterDate(date))
    }

    /// Transactions after the one `token` marks, oldest first; every transaction for nil.
    ///
    /// - Parameter token: A token from a transaction, a did-save notification or
    ///   `currentPersistentHistoryToken(fromStores:)`.
    /// - Returns: The request.
    public class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self {
        Self(operation: .fetch, selection: token.map { .afterToken($0) } ?? .all, token: token)
    }

    /// Transactions after `transaction`, oldest first; every transaction for nil.
    ///
    /// - Parameter transaction: A transaction a history request returned.
    /// - Returns: The request.
    public class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self {
        Self(operation: .fetch, selection: transaction.map { .afterTransaction(number: $0.transactionNumber, storeID: $0.storeID) } ?? .all)
    }

    /// The transactions, or changes, a fetch request on the history entities matches.
    ///
    /// ```swift
    /// let others = NSPersistentHistoryTransaction.fetchRequest!
    /// others.predicate = NSPredicate(format: "author != %@", "app")
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: others)
    /// ```
    ///
    /// - Parameter fetchRequest: A request whose entity is `NSPersistentHistoryTransaction`'s or
    ///   `NSPersistentHistoryChange`'s `entityDescription`, with a predicate on their keys.
    /// - Returns: The request.
    public class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> Self {
        let request = Self(operation: .fetch, selection: .all)
        request.fetchRequest = fetchRequest
        return request
    }

    /// Deletes the history before `date`.
    ///
    /// - Parameter date: Transactions with an earlier timestamp are deleted.
    /// - Returns: The request.
    public class func deleteHistory(before date: Date) -> Self {
        Self(operation: .delete, selection: .beforeDate(date))
    }

    /// Deletes the history before the transaction `token` marks (that one is kept); nothing for nil.
    ///
    /// - Parameter token: The first transaction to keep, as a token.
    /// - Returns: The request.
    public class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self {
        Self(operation: .delete, selection: token.map { .beforeToken($0) } ?? .none, token: token)
    }

    /// Deletes the history before `transaction` (which is kept); nothing for nil.
    ///
    /// - Parameter transaction: The first transaction to keep.
    /// - Returns: The request.
    public class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self {
        Self(operation: .delete, selection: transaction.map { .beforeTransaction(number: $0.transactionNumber, storeID: $0.storeID) } ?? .none)
    }

    /// The boundary in `store`'s history, or nil when the request selects nothing there.
    func boundary(in storeID: String) -> HistoryBoundary? {
        switch selection {
        case .all: return .all
        case .none: return nil
        case .afterDate(let date): return .afterDate(date)
        case .beforeDate(let date): return .beforeDate(date)
        case .afterToken(let token): return token.storeTokens[storeID].map { .afterNumber($0) } ?? .all
        case .beforeToken(let token): return token.storeTokens[storeID].map { .beforeNumber($0) }
        case .afterTransaction(let number, let store): return store == storeID ? .afterNumber(number) : .all
        case .beforeTransaction(let number, let store): return store == storeID ? .beforeNumber(number) : nil
        }
    }
}
