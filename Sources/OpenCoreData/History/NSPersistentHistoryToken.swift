import Foundation

/// A position in the persistent history of one or more stores: for each store (by its
/// identifier), the number of the last transaction it covers. Tokens are what an app keeps
/// between launches to ask for "everything after what I last merged".
///
/// Archive a token with `NSKeyedArchiver` (it supports secure coding); it keeps its numbers
/// under Apple's key, `NSPersistentHistoryTokenDictionary`.
public final class NSPersistentHistoryToken: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.

    /// Transaction numbers by store identifier.
    package let storeTokens: [String: Int64]

    init(storeTokens: [String: Int64]) {
        self.storeTokens = storeTokens
        super.init()
    }

    /// The token of a transaction: one store, one number.
    package convenience init(transactionNumber: Int64, storeID: String) {
        self.init(storeTokens: [storeID: transactionNumber])
    }

    static let archiveKey = "NSPersistentHistoryTokenDictionary"

    public static var supportsSecureCoding: Bool { true }

    /// Decodes a token archived by `encode(with:)`.
    ///
    /// - Parameter coder: The decoder.
    /// - Returns: Nil when the archive holds no store numbers, as Apple's token answers.
    public init?(coder: NSCoder) {
        let classes: [AnyClass] = [NSDictionary.self, NSString.self, NSNumber.self]
        guard let dictionary = coder.decodeObject(of: classes, forKey: Self.archiveKey) as? NSDictionary else { return nil }
        var tokens: [String: Int64] = [:]
        for (key, value) in dictionary {
            guard let store = (key as? NSString).map(String.init) ?? key as? String,
                let number = (value as? NSNumber)?.int64Value ?? (value as? Int).map(Int64.init)
            else { continue }
            tokens[store] = number
        }
        guard !tokens.isEmpty else { return nil }
        storeTokens = tokens
        super.init()
    }

    /// Archives the token's store numbers under `NSPersistentHistoryTokenDictionary`.
    ///
    /// - Parameter coder: The encoder.
    public func encode(with coder: NSCoder) {
        let dictionary = NSMutableDictionary()
        for (store, number) in storeTokens { dictionary[NSString(string: store)] = NSNumber(value: number) }
        coder.encode(dictionary, forKey: Self.archiveKey)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    override public func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.storeTokens == storeTokens
    }

    override public var hash: Int {
        storeTokens.values.reduce(0) { $0 &+ Int(truncatingIfNeeded: $1) }
    }

    override public var description: String {
        let entries = storeTokens.keys.sorted().map { "\"\($0)\" = \(storeTokens[$0]!);" }.joined(separator: " ")
        return "<NSPersistentHistoryToken - { \(entries) }>"
    }
}
