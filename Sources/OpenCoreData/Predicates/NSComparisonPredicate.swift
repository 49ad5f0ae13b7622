/// A predicate that compares two expressions with an operator: `count > 3`, `name BEGINSWITH[c] "a"`,
/// `ANY tags.label == "home"`.
///
/// A subclass of Foundation's `NSPredicate`, so it goes wherever a predicate goes (fetch requests,
/// `NSCompoundPredicate`). Linux's Foundation declares `NSComparisonPredicate` with every
/// initializer unavailable, so OpenCoreData provides its own: in files importing both `Foundation`
/// and `OpenCoreData`, `NSComparisonPredicate(leftExpression:…)` resolves to this class; in a type
/// position, write `OpenCoreData.NSComparisonPredicate`.
///
/// ```swift
/// let p = NSComparisonPredicate(
///     leftExpression: NSExpression(forKeyPath: "name"), rightExpression: NSExpression(forConstantValue: "it"),
///     modifier: .direct, type: .beginsWith, options: .caseInsensitive)
/// p.evaluate(with: ["name": "Item"])  // true
/// ```
open class NSComparisonPredicate: Foundation.NSPredicate {
    /// The comparison, with Apple's raw values.
    public enum Operator: UInt, Sendable {
        case lessThan = 0
        case lessThanOrEqualTo = 1
        case greaterThan = 2
        case greaterThanOrEqualTo = 3
        case equalTo = 4
        case notEqualTo = 5
        case matches = 6
        case like = 7
        case beginsWith = 8
        case endsWith = 9
        case `in` = 10
        case customSelector = 11
        case contains = 99
        case between = 100
    }

    /// How the left expression is applied when it is a collection: directly, or to any / all of
    /// its elements (`ANY`, `ALL` in a format string).
    public enum Modifier: UInt, Sendable {
        case direct = 0
        case all = 1
        case any = 2
    }

    /// String comparison options: `[c]`, `[d]` and `[n]` in a format string.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        /// Creates options from Apple's raw bits.
        ///
        /// - Parameter rawValue: The bits of `NSComparisonPredicate.Options`: 1 for case-insensitive,
        ///   2 for diacritic-insensitive, 4 for normalized.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: letters compare without regard to case.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: letters compare without regard to diacritics (`é` equals `e`).
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized; accepted, compares as without it.
        public static let normalized = Options(rawValue: 4)
    }

    /// The left-hand side of the comparison.
    public let leftExpression: NSExpression
    /// The right-hand side of the comparison.
    public let rightExpression: NSExpression
    /// The comparison operator.
    public let predicateOperatorType: Operator
    /// Whether the comparison applies to the left value directly or to any / all of its elements.
    public let comparisonPredicateModifier: Modifier
    /// The string options of the comparison.
    public let options: Options

    /// A predicate comparing `lhs` and `rhs` with `type`.
    ///
    /// - Parameters:
    ///   - lhs: the left expression, usually a key path.
    ///   - rhs: the right expression, usually a constant.
    ///   - modifier: `.any` / `.all` to compare the elements of a to-many left-hand value.
    ///   - type: the operator.
    ///   - options: case and diacritic folding for string comparisons.
    public init(
        leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, modifier: Modifier,
        type: Operator, options: Options = []
    ) {
        leftExpression = lhs
        rightExpression = rhs
        comparisonPredicateModifier = modifier
        predicateOperatorType = type
        self.options = options
        // A block-kind base (never called: `evaluate` is overridden) so Foundation's own
        // `isEqual` never takes this predicate for FALSEPREDICATE, as a value-kind base would.
        super.init(block: { _, _ in false })
    }

    /// Whether `object` satisfies the comparison, with `$variables` read from `bindings`.
    ///
    /// - Parameters:
    ///   - object: The value key paths are read from, usually a managed object or a dictionary.
    ///   - bindings: Values for the predicate's `$variables`, by name without the `$`, or `nil`.
    /// - Returns: `true` when the comparison holds for `object`.
    override open func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        PredicateEvaluator.evaluate(self, object: object, bindings: bindings)
    }

    /// Comparison predicates are immutable: a copy is the predicate itself.
    ///
    /// - Parameter zone: Ignored; kept for `NSCopying`.
    /// - Returns: This same predicate.
    override open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Structural equality: same operator, modifier, options and equal expressions.
    ///
    /// - Parameter object: The value to compare with.
    /// - Returns: `true` when `object` is an `NSComparisonPredicate` with the same operator,
    ///   modifier and options and equal left and right expressions.
    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSComparisonPredicate else { return false }
        return other === self
            || (predicateOperatorType == other.predicateOperatorType
                && comparisonPredicateModifier == other.comparisonPredicateModifier
                && options == other.options
                && leftExpression.isEqual(other.leftExpression)
                && rightExpression.isEqual(other.rightExpression))
    }

    /// A hash consistent with `isEqual`.
    override open var hash: Int {
        var hasher = Hasher()
        hasher.combine(predicateOperatorType)
        hasher.combine(comparisonPredicateModifier)
        hasher.combine(options)
        hasher.combine(leftExpression.hash)
        hasher.combine(rightExpression.hash)
        return hasher.finalize()
    }

    /// The predicate in Apple's canonical format syntax (the same as `predicateFormat`).
    override open var description: String { PredicateFormatter.format(self) }
}

/// A compound predicate built by the parser or by substitution: Foundation's `NSCompoundPredicate`
/// with structural equality and copying, which Linux's Foundation lacks (there every compound
/// predicate equals every other one and copies to FALSEPREDICATE).
final class CompoundPredicate: NSCompoundPredicate {
    override func copy(with zone: NSZone? = nil) -> Any { self }

    override func isEqual(_ object: Any?) -> Bool { PredicateEquality.isEqual(self, object) }

    override var hash: Int {
        subpredicates.reduce(Int(compoundPredicateType.rawValue)) { $0 &* 31 &+ PredicateEquality.hash($1) }
    }

    override var description: String { PredicateFormatter.format(self) }
}

/// Structural equality of predicates, covering Foundation's classes whose own `isEqual` is wrong
/// on Linux (compound predicates) or identity-based (block predicates).
enum PredicateEquality {
    static func isEqual(_ predicate: Foundation.NSPredicate, _ object: Any?) -> Bool {
        guard let other = object as? Foundation.NSPredicate else { return false }
        if predicate === other { return true }
        switch (predicate, other) {
        case (let a as NSCompoundPredicate, let b as NSCompoundPredicate):
            guard a.compoundPredicateType == b.compoundPredicateType, a.subpredicates.count == b.subpredicates.count else {
                return false
            }
            return zip(a.subpredicates, b.subpredicates).allSatisfy { x, y in
                isEqual(x, y)
            }
        case (is NSCompoundPredicate, _), (_, is NSCompoundPredicate): return false
        default: return predicate.isEqual(other)
        }
    }

    static func hash(_ predicate: Foundation.NSPredicate) -> Int {
        if let compound = predicate as? NSCompoundPredicate {
            return compound.subpredicates.reduce(Int(compound.compoundPredicateType.rawValue)) {
                $0 &* 31 &+ hash($1)
            }
        }
        if type(of: predicate) == Foundation.NSPredicate.self { return PredicateKind(predicate).hashValue }
        return predicate.hash
    }
}

/// What a plain Foundation predicate is, told apart without calling Foundation's deprecated
/// `predicateFormat`. Compound predicates are excluded first: Linux's Foundation gives them the
/// FALSEPREDICATE kind internally, so they compare equal to it.
package enum PredicateKind: Hashable {
    case truePredicate, falsePredicate, block, other

    package init(_ predicate: Foundation.NSPredicate) {
        if let constant = predicate as? ValuePredicate {
            self = constant.value ? .truePredicate : .falsePredicate
            return
        }
        guard type(of: predicate) == Foundation.NSPredicate.self else {
            self = .other
            return
        }
        if predicate.isEqual(Foundation.NSPredicate(value: true)) {
            self = .truePredicate
        } else if predicate.isEqual(Foundation.NSPredicate(value: false)) {
            self = .falsePredicate
        } else {
            self = .block
        }
    }
}

/// `TRUEPREDICATE` and `FALSEPREDICATE` as the parser makes them: Foundation's value predicates,
/// whose `description` on Linux is `<NSPredicate: 0x…>`, which does not parse back.
final class ValuePredicate: Foundation.NSPredicate {
    let value: Bool

    init(_ value: Bool) {
        self.value = value
        super.init(value: value)
    }

    required init?(coder: NSCoder) { nil }

    override func copy(with zone: NSZone? = nil) -> Any { self }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Foundation.NSPredicate else { return false }
        return PredicateKind(other) == PredicateKind(self)
    }

    override var hash: Int { value ? 1 : 0 }

    override var description: String { value ? "TRUEPREDICATE" : "FALSEPREDICATE" }
}
