import Foundation

/// What sets one SQL store's language apart from another's, for the parts of a statement the
/// relational layer writes once for both: conditions, subqueries and aggregates.
///
/// A dialect answers for the semantics the in-memory evaluator defines: text compared by
/// Unicode scalars, two nils equal, a condition that is never NULL under a `NOT`.
package protocol SQLDialect: Sendable {
    /// The dialect's fixed words.
    var words: SQLWords { get }
    /// The functions that call the evaluator's own code from SQL; nil when the dialect has none,
    /// and a condition needing one cannot run in SQL (`SQLNeedsEvaluator`).
    var evaluator: SQLEvaluatorFunctions? { get }

    /// `text`, ordered and compared by Unicode scalars as the evaluator orders strings.
    func inScalarOrder(_ text: SQLFragment) -> SQLFragment
    /// `value` as a floating-point number, for a division.
    func floatingPoint(_ value: SQLFragment) -> SQLFragment
    /// `value` in a type in which `+`, `-` and `*` do not fail on overflow.
    func arithmeticOperand(_ value: SQLFragment) -> SQLFragment
    /// The sum of `value` over the rows, 0 for none: SQLite's `TOTAL`.
    func total(_ value: SQLFragment) -> SQLFragment
    /// A number cut toward zero to an integer column's type, as a fractional number set on an
    /// integer attribute is.
    func wholeNumber(_ value: SQLFragment) -> SQLFragment
    /// A number as a Boolean column keeps it: 1 unless it is 0, NULL for NULL.
    func truthValue(_ value: SQLFragment) -> SQLFragment
    /// The length of `text` in UTF-16 code units, as an `NSString` counts it (a character
    /// outside the Basic Multilingual Plane counts 2); NULL for NULL.
    func utf16Length(_ text: SQLFragment) -> SQLFragment
    /// Whether binary data that may be stored externally is written with the leading byte 1 that
    /// marks it inline (Apple's SQLite format); a store of this library's own format need not.
    var marksExternalBinaryData: Bool { get }
    /// A test of a text `column` by BEGINSWITH, ENDSWITH, CONTAINS or LIKE with `pattern`, without
    /// folding, comparing Unicode scalars; nil to leave it to the evaluator's function.
    ///
    /// - Parameters:
    ///   - type: The string operator.
    ///   - column: The text tested; a row where it is NULL may give NULL.
    ///   - pattern: The operator's pattern, in Core Data's LIKE syntax for `.like`.
    ///   - evaluated: The evaluator's test, when the dialect has the functions.
    /// - Returns: The condition, or nil.
    func scalarTest(
        _ type: NSComparisonPredicate.Operator, _ column: SQLFragment, _ pattern: String, evaluated: SQLFragment?
    ) -> SQLFragment?
}

/// The fixed words of a dialect.
package struct SQLWords: Sendable {
    /// The store's name in error messages: "SQLite".
    package var storeName: String
    /// The conditions that always and never hold: `1` and `0`, or `TRUE` and `FALSE`.
    package var alwaysTrue: String
    package var alwaysFalse: String
    /// The operators comparing two values, NULL included, as equal or not: `IS` and `IS NOT`, or
    /// `IS NOT DISTINCT FROM` and `IS DISTINCT FROM`.
    package var identical: String
    package var notIdentical: String

    package init(storeName: String, alwaysTrue: String, alwaysFalse: String, identical: String, notIdentical: String) {
        self.storeName = storeName
        self.alwaysTrue = alwaysTrue
        self.alwaysFalse = alwaysFalse
        self.identical = identical
        self.notIdentical = notIdentical
    }
}

/// The names of the SQL functions through which a dialect calls the evaluator's own Swift code,
/// so that folding and regular expressions agree with memory to the character.
package struct SQLEvaluatorFunctions: Sendable {
    /// `fold(text, flags)`: the text with case and / or diacritics folded; NULL stays NULL.
    package var fold: String
    /// `matches(text, pattern, flags)`: 1 when the whole text matches the ICU expression.
    package var matches: String
    /// `string(text, pattern, operator, flags)`: BEGINSWITH, ENDSWITH, CONTAINS or LIKE (by
    /// `NSComparisonPredicate.Operator` raw value) as the evaluator decides it; 0 for NULL.
    package var string: String
    /// `isSingleLine(text)`: 1 when no character of the text stops a regular expression's `.`.
    package var isSingleLine: String

    /// 1 for case-insensitive, 2 for diacritic-insensitive, as the functions read them.
    package static func flags(_ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> Int {
        (caseInsensitive ? 1 : 0) | (diacriticInsensitive ? 2 : 0)
    }
}

/// Thrown by the predicate compiler when a condition needs the evaluator's functions and the
/// dialect has none: the store may evaluate the predicate in memory instead.
package struct SQLNeedsEvaluator: Error {}
