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
    /// The string compared, as a node of the predicate.
    var comparedRoot: Any { get }
    /// The string it is compared with.
    var comparedOther: Any { get }
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
    var comparedRoot: Any { root }
    var comparedOther: Any { other }
    var comparisonOptions: NSComparisonPredicate.Options { .caseInsensitive }
    var ordersByLocale: Bool { false }
}

/// `$0.name.localizedCompare(text) == .orderedSame` → `name == text`.
extension PredicateExpressions.StringLocalizedCompare: ConvertiblePredicateExpression, ConvertibleStringComparison {
    var comparedRoot: Any { root }
    var comparedOther: Any { other }
    var comparisonOptions: NSComparisonPredicate.Options { [] }
    var ordersByLocale: Bool { true }
}

extension PredicateConverter {
    /// `comparison == result` or `comparison != result` (either way round) for a string
    /// comparison and a constant `ComparisonResult`, as the NSPredicate comparison of its two
    /// strings that says the same; nil when neither side is a string comparison.
    ///
    /// - Parameters:
    ///   - lhs: The left side of `==` or `!=`.
    ///   - equal: Whether the operator is `==`.
    ///   - rhs: The right side.
    /// - Returns: The predicate, or nil for a comparison of other values.
    /// - Throws: `Unsupported` for a result that is not a constant, or an order by locale.
    mutating func stringComparison(_ lhs: Any, equal: Bool, _ rhs: Any) throws -> Foundation.NSPredicate? {
        let (comparison, result): (any ConvertibleStringComparison, Any)
        if let left = lhs as? any ConvertibleStringComparison {
            (comparison, result) = (left, rhs)
        } else if let right = rhs as? any ConvertibleStringComparison {
            (comparison, result) = (right, lhs)
        } else {
            return nil
        }
        // Read off the node, not converted: a captured value may be converted to what a store
        // compares (OpenSwiftData's enums to their raw values).
        guard let order = (result as? PredicateExpressions.Value<ComparisonResult>)?.value else {
            throw Unsupported(description: "a string comparison's result compared with something else than a constant")
        }
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
        return try self.comparison(comparison.comparedRoot, type, comparison.comparedOther, options: comparison.comparisonOptions)
    }
}
