import Foundation
import OpenCoreData

/// A transaction of a store's history: one save (or batch request), with what it changed.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The transaction's position in its store's history.
    var token: DefaultHistoryToken { get }
    /// The models the transaction inserted, updated and deleted.
    var changes: [HistoryChange] { get }
}

/// A position in the stores' history: comparable, `Codable` to keep between launches, usable in
/// a predicate (`#Predicate { $0.token > lastToken }`).
public struct DefaultHistoryToken: Comparable, Hashable, Codable, Sendable {
    /// The last transaction number reached in each store, by store identifier.
    let storeTokens: [String: Int64]

    init(_ token: NSPersistentHistoryToken) {
        storeTokens = token.storeTokens
    }

    init(storeID: String, transactionNumber: Int64) {
        storeTokens = [storeID: transactionNumber]
    }

    /// Earlier in every store both name, and in one of them strictly; tokens of different stores
    /// by their sums, so that the order is total.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        let shared = Set(lhs.storeTokens.keys).intersection(rhs.storeTokens.keys)
        if !shared.isEmpty {
            let pairs = shared.map { (lhs.storeTokens[$0]!, rhs.storeTokens[$0]!) }
            if pairs.allSatisfy({ $0 <= $1 }) && pairs.contains(where: { $0 < $1 }) { return true }
            if pairs.allSatisfy({ $0 >= $1 }) { return false }
        }
        return lhs.storeTokens.values.reduce(0, +) < rhs.storeTokens.values.reduce(0, +)
    }
}

/// One change of a transaction.
public enum HistoryChange: @unchecked Sendable {
    // @unchecked Sendable: the payloads are immutable values (identifiers, key paths, numbers).
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)
}

/// A model inserted by a transaction.
public protocol HistoryInsert<Model> {
    associatedtype Model: PersistentModel
    /// The inserted model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's number in the store's history.
    var changeIdentifier: Int64 { get }
    /// The number of the transaction it belongs to.
    var transactionIdentifier: Int64 { get }
}

/// A model updated by a transaction.
public protocol HistoryUpdate<Model> {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
    /// The attributes (and to-one relationships) the update set.
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

/// A model deleted by a transaction.
public protocol HistoryDelete<Model> {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
    /// The values kept of the deleted model (`.preserveValueOnDeletion` attributes).
    var tombstone: HistoryTombstone<Model> { get }
}

/// The values kept of a deleted model.
public struct HistoryTombstone<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked Sendable: property-list values read from the store.
    let values: [String: Any]

    /// The kept value of a property, nil when it was not kept.
    ///
    /// - Parameter keyPath: The property.
    public subscript<Value>(_ keyPath: KeyPath<Model, Value>) -> Any? {
        guard let name = FetchTranslation.propertyName(of: keyPath) else { return nil }
        return values[name]
    }
}

public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
}

public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, @unchecked Sendable {
    // @unchecked Sendable: key paths to stored properties capture nothing.
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let updatedAttributes: [PartialKeyPath<Model>]
}

public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let tombstone: HistoryTombstone<Model>
}

/// A transaction as the default history reads it from the store's history tables.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's number in its store.
    public let transactionIdentifier: Int64
    public let token: DefaultHistoryToken
    public let changes: [HistoryChange]
    /// When it was saved.
    public let timestamp: Date
    /// The saving context's `author`, if set.
    public let author: String?
    public let bundleIdentifier: String
    public let processIdentifier: String
    public let storeIdentifier: String

    public var id: Int64 { transactionIdentifier }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }
}

/// Which transactions to read: a predicate over them, their order, how many.
public struct HistoryDescriptor<T: HistoryTransaction> {
    public var predicate: Predicate<T>?
    public var sortBy: [SortDescriptor<T>] = []
    public var fetchLimit: Int?

    /// Describes a read of the history.
    ///
    /// - Parameter predicate: The transactions to read; nil for all.
    public init(predicate: Predicate<T>? = nil) {
        self.predicate = predicate
    }
}
