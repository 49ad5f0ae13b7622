/// Lets `NSSortDescriptor(key:ascending:)` build a key-based descriptor on Linux, where Foundation's
/// own key-based initializers are unavailable. A protocol-extension initializer can return a
/// subclass, so the result is still a `Foundation.NSSortDescriptor` in every type position.
public protocol _KeyedSortDescriptorInitializable {}

extension Foundation.NSSortDescriptor: _KeyedSortDescriptorInitializable {}

extension _KeyedSortDescriptorInitializable {
    /// A sort descriptor that orders by the value at `key` (a key path through to-one relationships).
    ///
    /// - Parameters:
    ///   - key: The key path whose values are compared, such as `"name"` or `"owner.name"`.
    ///   - ascending: `true` to put smaller values first, `false` for the reverse.
    public init(key: String?, ascending: Bool) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, selectorName: nil) as! Self
    }

    /// A sort descriptor that orders by `key` with the comparison Apple names by selector:
    /// `compare:`, `caseInsensitiveCompare:`, `localizedCompare:`,
    /// `localizedCaseInsensitiveCompare:` or `localizedStandardCompare:`.
    ///
    /// - Parameters:
    ///   - key: The key path whose values are compared.
    ///   - ascending: `true` to put smaller values first, `false` for the reverse.
    ///   - selector: The name of the comparison, one of those above; `nil` means `compare:`.
    public init(key: String?, ascending: Bool, selector: String?) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, selectorName: selector) as! Self
    }
}

extension _KeyedSortDescriptorInitializable {
    /// A sort descriptor that orders by the property a key path of a managed object class names,
    /// `NSSortDescriptor(keyPath: \Item.createdAt, ascending: true)`, which the store sorts by as
    /// by its key (`"createdAt"`). Key paths through to-one relationships name a dotted key path.
    ///
    /// - Parameters:
    ///   - keyPath: A key path of an `NSManagedObject` subclass to `@NSManaged` or generated
    ///     properties. One that reads anything else cannot be fetched with: the fetch fails with
    ///     `NSCoreDataError`.
    ///   - ascending: `true` to put smaller values first, `false` for the reverse.
    public init<Root: NSManagedObject, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        // Named when first asked: a descriptor may be made before the model is loaded.
        self = KeyedSortDescriptor(managedKeyPath: keyPath, ascending: ascending) as! Self
    }

    /// The sort descriptor for a Swift `SortDescriptor` of a managed object class (Apple's
    /// `NSSortDescriptor(_:)`): its key path's property, its order, and `compare:` for strings
    /// (Linux's Foundation keeps a `String.StandardComparator`'s options private).
    ///
    /// - Parameter sortDescriptor: A sort descriptor by a key path to a managed property.
    public init<Root: NSManagedObject>(_ sortDescriptor: SortDescriptor<Root>) {
        let ascending = sortDescriptor.order == .forward
        guard let keyPath = sortDescriptor.keyPath else {
            self = KeyedSortDescriptor(key: nil, ascending: ascending, selectorName: nil) as! Self
            return
        }
        self = KeyedSortDescriptor(managedKeyPath: keyPath, ascending: ascending) as! Self
    }
}

extension Foundation.NSSortDescriptor {
    /// The key path the descriptor sorts by: its key, or the property names a Swift key path of
    /// a managed object class reads; nil for anything else.
    public var key: String? {
        if let keyed = self as? KeyedSortDescriptor { return keyed.keyString }
        return ManagedKeyPathNames.name(of: keyPath)
    }

    /// The name of the comparison selector, such as `caseInsensitiveCompare:`.
    public var selectorName: String? { (self as? KeyedSortDescriptor)?.comparisonSelector ?? (key == nil ? nil : "compare:") }
}

/// A sort descriptor known by key and selector name, comparing values as Core Data does.
package final class KeyedSortDescriptor: Foundation.NSSortDescriptor {
    private let givenKey: String?
    /// A Swift key path of a managed object class, named when the key is first asked for.
    private let managedKeyPath: AnyKeyPath?
    package let comparisonSelector: String?

    /// The key: the one given, or the names the managed key path reads (nil while they are
    /// unknown: a fetch then fails, saying it needs a key).
    var keyString: String? {
        if let managedKeyPath { return ManagedKeyPathNames.name(of: managedKeyPath) }
        return givenKey
    }

    init(key: String?, ascending: Bool, selectorName: String?) {
        self.givenKey = key
        self.managedKeyPath = nil
        self.comparisonSelector = selectorName
        super.init(keyPath: \KeyedSortDescriptor.givenKey, ascending: ascending, comparator: { _, _ in .orderedSame })
    }

    init(managedKeyPath: AnyKeyPath, ascending: Bool) {
        self.givenKey = nil
        self.managedKeyPath = managedKeyPath
        self.comparisonSelector = nil
        super.init(keyPath: \KeyedSortDescriptor.givenKey, ascending: ascending, comparator: { _, _ in .orderedSame })
    }

    package override func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        let result = SortComparison(selector: comparisonSelector).compareValues(value(of: object1), value(of: object2))
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    package override var reversedSortDescriptor: Any {
        if let managedKeyPath { return KeyedSortDescriptor(managedKeyPath: managedKeyPath, ascending: !ascending) }
        return KeyedSortDescriptor(key: givenKey, ascending: !ascending, selectorName: comparisonSelector)
    }

    /// The value at the key path (through to-one relationships, or a collection operator such as
    /// `books.@count`) of an object, a stored row or a dictionary, as predicates read it.
    private func value(of object: Any) -> Any? {
        guard let keyString else {
            // A key path without a name sorts objects by what it reads, as Foundation's would.
            if let managedKeyPath, let object = object as? NSManagedObject { return object[keyPath: managedKeyPath] ?? nil }
            return object
        }
        return KeyValueReader.value(atKeyPath: keyString, of: object)
    }

    package override var description: String {
        "(\(keyString ?? "self"), \(ascending ? "ascending" : "descending"), \(comparisonSelector ?? "compare:"))"
    }
}

/// How a sort descriptor's selector orders values. Strings use the selector's comparison; other
/// values compare as predicates compare them, nil first. The SQLite store registers one collation
/// per string comparison that calls `compare(_:_:)`, so the store's order is the in-memory order.
package enum SortComparison: String, CaseIterable, Sendable {
    /// Unicode code points, as SQLite's BINARY collation.
    case compare = "compare:"
    case caseInsensitive = "caseInsensitiveCompare:"
    case localized = "localizedCompare:"
    case localizedCaseInsensitive = "localizedCaseInsensitiveCompare:"
    case localizedStandard = "localizedStandardCompare:"

    /// The comparison a selector names; `compare:` for nil and for selectors it does not know.
    init(selector: String?) {
        self = selector.flatMap(SortComparison.init(rawValue:)) ?? .compare
    }

    /// Whether the store can order by `selector` (nil meaning `compare:`).
    static func isKnown(_ selector: String?) -> Bool { selector == nil || SortComparison(rawValue: selector!) != nil }

    /// The SQLite collation registered for this comparison; nil for BINARY.
    var collationName: String? {
        switch self {
        case .compare: nil
        case .caseInsensitive: "OCD_CASE_INSENSITIVE"
        case .localized: "OCD_LOCALIZED"
        case .localizedCaseInsensitive: "OCD_LOCALIZED_CASE_INSENSITIVE"
        case .localizedStandard: "OCD_LOCALIZED_STANDARD"
        }
    }

    /// Two strings in this comparison's order; the collations call this very function.
    func compare(_ a: String, _ b: String) -> ComparisonResult {
        switch self {
        case .compare: ValueComparison.compareStrings(a, b, caseInsensitive: false, diacriticInsensitive: false)
        case .caseInsensitive: Self.caseInsensitiveOrder(a, b)
        case .localized: a.localizedCompare(b)
        case .localizedCaseInsensitive: a.localizedCaseInsensitiveCompare(b)
        case .localizedStandard: a.localizedStandardCompare(b)
        }
    }

    /// Case-folded, canonically composed, then by code point. Linux's Foundation
    /// `caseInsensitiveCompare` is not transitive with composed characters (it puts "côte" before
    /// "Cz" and "Cz" before "Ça", yet "Ça" before "côte"), so no store could agree with it.
    static func caseInsensitiveOrder(_ a: String, _ b: String) -> ComparisonResult {
        let x = a.folding(options: .caseInsensitive, locale: nil).precomposedStringWithCanonicalMapping.unicodeScalars
        let y = b.folding(options: .caseInsensitive, locale: nil).precomposedStringWithCanonicalMapping.unicodeScalars
        if x.elementsEqual(y) { return .orderedSame }
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    /// Two values of a sort key: strings in this comparison's order, others as `compare:`.
    func compareValues(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult {
        if let a = ValueComparison.normalize(lhs) as? String, let b = ValueComparison.normalize(rhs) as? String {
            return compare(a, b)
        }
        return ValueComparison.compare(lhs, rhs) ?? .orderedSame
    }
}
