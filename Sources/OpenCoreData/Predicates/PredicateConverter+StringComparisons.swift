import Foundation

// `localizedStandardContains`, `caseInsensitiveCompare` and `localizedCompare` in a Swift
// `Predicate`, as the NSPredicate operators Core Data compiles to SQL.

/// `$0.name.localizedStandardContains(text)` → `name CONTAINS[cd] text`.
extension PredicateExpressions.StringLocalizedStandardContains: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(try converter.comparison(root, .contains, other, options: [.caseInsensitive, .diacriticInsensitive]))
    }
}

/// A string comparison whose `ComparisonResult` a predicate compares with a constant.
protocol ConvertibleStringComparison {
    associatedtype Root
    associatedtype Other
    /// The string compared, as a node of the predicate.
    var root: Root { get }
    /// The string it is compared with.
    var other: Other { get }
    /// The folding the comparison does.
    var comparisonOptions: NSComparisonPredicate.Options { get }
    /// Whether the comparison orders by the locale, which a store cannot: only equality converts.
    var ordersByLocale: Bool { get }
}

extension ConvertibleStringComparison {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        throw PredicateConverter.Unsupported(description: "a string comparison's result used other than with == or != and a constant")
    }
}

/// `$0.name.caseInsensitiveCompare(text) == .orderedSame` → `name ==[c] text`.
extension PredicateExpressions.StringCaseInsensitiveCompare: ConvertiblePredicateExpression, ConvertibleStringComparison {
    var comparisonOptions: NSComparisonPredicate.Options { .caseInsensitive }
    var ordersByLocale: Bool { false }
}

/// `$0.name.localizedCompare(text) == .orderedSame` → `name == text`.
extension PredicateExpressions.StringLocalizedCompare: ConvertiblePredicateExpression, ConvertibleStringComparison {
    var comparisonOptions: NSComparisonPredicate.Options { [] }
    var ordersByLocale: Bool { true }
}

/// `optional?.caseInsensitiveCompare(text)`: a string comparison of an optional's value.
protocol OptionalStringComparison {
    /// The optional.
    var optionalBase: Any { get }
    /// The variable that stands for its value in `unwrappedComparison`.
    var unwrappedVariable: PredicateExpressions.VariableID { get }
    /// The comparison of its value.
    var unwrappedComparison: any ConvertibleStringComparison { get }
}

extension PredicateExpressions.OptionalFlatMap: OptionalStringComparison where RHS: ConvertibleStringComparison {
    var optionalBase: Any { wrapped }
    var unwrappedVariable: PredicateExpressions.VariableID { variable.key }
    var unwrappedComparison: any ConvertibleStringComparison { transform }
}

extension PredicateConverter {
    /// `comparison == result` or `comparison != result` (either way round) for a string
    /// comparison, or one of an optional's value (`title?.caseInsensitiveCompare(text)`), and a
    /// constant `ComparisonResult`, as the NSPredicate comparison of its two strings that says
    /// the same; nil when neither side is a string comparison.
    ///
    /// - Parameters:
    ///   - lhs: The left side of `==` or `!=`.
    ///   - equal: Whether the operator is `==`.
    ///   - rhs: The right side.
    /// - Returns: The predicate, or nil for a comparison of other values.
    /// - Throws: `Unsupported` for a result that is not a constant, or an order by locale.
    mutating func stringComparison(_ lhs: Any, equal: Bool, _ rhs: Any) throws -> Foundation.NSPredicate? {
        let isComparison = { (node: Any) in node is any ConvertibleStringComparison || node is any OptionalStringComparison }
        let (node, result): (Any, Any)
        if isComparison(lhs) {
            (node, result) = (lhs, rhs)
        } else if isComparison(rhs) {
            (node, result) = (rhs, lhs)
        } else {
            return nil
        }
        // Read off the node, not converted: a captured value may be converted to what a store
        // compares (OpenSwiftData's enums to their raw values). An optional comparison's result
        // is compared with an optional constant.
        let order: ComparisonResult?
        if let value = result as? PredicateExpressions.Value<ComparisonResult> {
            order = value.value
        } else if let value = result as? PredicateExpressions.Value<ComparisonResult?> {
            order = value.value
        } else {
            throw Unsupported(description: "a string comparison's result compared with something else than a constant")
        }
        guard let optional = node as? any OptionalStringComparison else {
            // A comparison of two strings has a result: `Value<ComparisonResult>`.
            guard let comparison = node as? any ConvertibleStringComparison, let order else {
                throw Unsupported(description: "a string comparison's result compared with nil")
            }
            return try stringComparison(comparison, order, equal: equal)
        }
        let unwrapped = try expression(optional.optionalBase)
        guard let order else {
            // `title?.caseInsensitiveCompare(text) == nil`: the title is nil.
            let isNil = Self.isNil(unwrapped)
            return equal ? isNil : CompoundPredicate(type: .not, subpredicates: [isNil])
        }
        let comparison = optional.unwrappedComparison
        let predicate = try with(optional.unwrappedVariable, as: .expression(unwrapped)) {
            try $0.stringComparison(comparison, order, equal: equal)
        }
        // A nil result equals no constant result: `==` fails for nil, `!=` holds.
        return Self.optionalCondition(predicate, unwrapped, equals: true, orNil: !equal)
    }

    /// `comparison == order` (or `!=`) as the comparison of its two strings.
    private mutating func stringComparison(
        _ comparison: any ConvertibleStringComparison, _ order: ComparisonResult, equal: Bool
    ) throws -> Foundation.NSPredicate {
        let type: NSComparisonPredicate.Operator
        switch (order, equal) {
        case (.orderedSame, true): type = .equalTo
        case (.orderedSame, false): type = .notEqualTo
        case (.orderedAscending, true): type = .lessThan
        case (.orderedAscending, false): type = .greaterThanOrEqualTo
        case (.orderedDescending, true): type = .greaterThan
        case (.orderedDescending, false): type = .lessThanOrEqualTo
        }
        if comparison.ordersByLocale, order != .orderedSame {
            throw Unsupported(description: "an order by locale (localizedCompare), which a store cannot compute")
        }
        return try self.comparison(comparison.root, type, comparison.other, options: comparison.comparisonOptions)
    }
}
