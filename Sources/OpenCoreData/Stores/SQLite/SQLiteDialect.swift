import Foundation

/// SQLite's SQL: conditions are 0 or 1, `IS` compares NULLs, text compares as UTF-8 bytes (the
/// evaluator's scalar order) without a collation, and the evaluator's functions are registered
/// on every connection (`SQLPredicateFunctions`).
struct SQLiteDialect: SQLDialect {
    var words: SQLWords { SQLWords(storeName: "SQLite", alwaysTrue: "1", alwaysFalse: "0", identical: "IS", notIdentical: "IS NOT") }
    var evaluator: SQLEvaluatorFunctions? { SQLPredicateFunctions.names }

    func inScalarOrder(_ text: SQLFragment) -> SQLFragment { text }
    func floatingPoint(_ value: SQLFragment) -> SQLFragment { "CAST(\(value) AS REAL)" }
    // SQLite turns an integer that overflows into a floating-point number, as the evaluator does.
    func arithmeticOperand(_ value: SQLFragment) -> SQLFragment { value }
    func total(_ value: SQLFragment) -> SQLFragment { "TOTAL(\(value))" }
    func wholeNumber(_ value: SQLFragment) -> SQLFragment { "CAST(\(value) AS INTEGER)" }
    func truthValue(_ value: SQLFragment) -> SQLFragment { "(\(value) <> 0)" }
    // SQLite's `length()` counts characters and stops at a NUL: the store's function counts
    // UTF-16 units of the whole text.
    func utf16Length(_ text: SQLFragment) -> SQLFragment { "\(raw: SQLPredicateFunctions.utf16Length)(\(text))" }
    var marksExternalBinaryData: Bool { true }

    func scalarTest(
        _ type: NSComparisonPredicate.Operator, _ column: SQLFragment, _ pattern: String, evaluated: SQLFragment?
    ) -> SQLFragment? {
        // A LIKE pattern is a GLOB pattern, with no call into Swift per row; BEGINSWITH,
        // ENDSWITH and CONTAINS are left to the evaluator.
        guard type == .like, let evaluated, let glob = SQLLikePattern.glob(pattern) else { return nil }
        // GLOB stops at a NUL character; a value holding one is left to the evaluator.
        return "(CASE WHEN instr(\(column), char(0)) > 0 THEN \(evaluated) ELSE \(column) GLOB \(bind: .text(glob)) END)"
    }
}
