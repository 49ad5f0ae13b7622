/// Lets `NSSortDescriptor(key:ascending:)` build a key-based descriptor on Linux, where Foundation's
/// own key-based initializers are unavailable. A protocol-extension initializer can return a
/// subclass, so the result is still a `Foundation.NSSortDescriptor` in every type position.
public protocol _KeyedSortDescriptorInitializable {}

extension Foundation.NSSortDescriptor: _KeyedSortDescriptorInitializable {}

extension _KeyedSortDescriptorInitializable {
    /// A sort descriptor that orders by the value at `key` (a key path through to-one relationships).
    public init(key: String?, ascending: Bool) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, selectorName: nil) as! Self
    }

    /// A sort descriptor that orders by `key` with the comparison Apple names by selector:
    /// `compare:`, `caseInsensitiveCompare:`, `localizedCompare:`,
    /// `localizedCaseInsensitiveCompare:` or `localizedStandardCompare:`.
    public init(key: String?, ascending: Bool, selector: String?) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, selectorName: selector) as! Self
    }
}

extension Foundation.NSSortDescriptor {
    /// The key path the descriptor sorts by; nil for a descriptor built from a Swift key path.
    public var key: String? { (self as? KeyedSortDescriptor)?.keyString }

    /// The name of the comparison selector, such as `caseInsensitiveCompare:`.
    public var selectorName: String? { (self as? KeyedSortDescriptor)?.comparisonSelector ?? (key == nil ? nil : "compare:") }
}

/// A sort descriptor known by key and selector name, comparing values as Core Data does.
final class KeyedSortDescriptor: Foundation.NSSortDescriptor {
    let keyString: String?
    let comparisonSelector: String?

    init(key: String?, ascending: Bool, selectorName: String?) {
        self.keyString = key
        self.comparisonSelector = selectorName
        super.init(keyPath: \KeyedSortDescriptor.keyString, ascending: ascending, comparator: { _, _ in .orderedSame })
    }

    override func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        let a = value(of: object1)
        let b = value(of: object2)
        let collation = SortCollation(self)
        let result = ValueComparison.compare(a, b, caseInsensitive: collation.caseInsensitive) ?? .orderedSame
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    override var reversedSortDescriptor: Any {
        KeyedSortDescriptor(key: keyString, ascending: !ascending, selectorName: comparisonSelector)
    }

    private func value(of object: Any) -> Any? {
        guard let keyString else { return object }
        if let object = object as? NSManagedObject { return object.value(forKeyPath: keyString) }
        if let row = object as? RowView { return row.storedValue(forKey: keyString) }
        if let dictionary = object as? [String: Any] { return dictionary[keyString] }
        return nil
    }

    override var description: String {
        "(\(keyString ?? "self"), \(ascending ? "ascending" : "descending"), \(comparisonSelector ?? "compare:"))"
    }
}

/// How a sort descriptor's selector orders strings, in memory and in SQL alike.
struct SortCollation {
    let caseInsensitive: Bool

    init(_ descriptor: Foundation.NSSortDescriptor) {
        let selector = descriptor.selectorName ?? "compare:"
        caseInsensitive = selector.lowercased().contains("caseinsensitive")
    }

    /// The COLLATE clause for SQLite.
    var sqlCollation: String { caseInsensitive ? " COLLATE NOCASE" : "" }
}
