import OpenCoreData

/// PostgreSQL's SQL for the relational layer's conditions: `TRUE` and `FALSE`, `IS [NOT] DISTINCT
/// FROM` for comparisons that hold for NULLs, text in the "C" collation's order (Unicode scalars,
/// the evaluator's order), numbered `$n` parameters, and no evaluator functions: a condition that
/// needs one (case or diacritic folding, `MATCHES`) is evaluated in memory by the store.
struct PostgreSQLDialect: SQLDialect {
    var words: SQLWords {
        SQLWords(storeName: "PostgreSQL", alwaysTrue: "TRUE", alwaysFalse: "FALSE", identical: "IS NOT DISTINCT FROM", notIdentical: "IS DISTINCT FROM")
    }
    var evaluator: SQLEvaluatorFunctions? { nil }

    func inScalarOrder(_ text: SQLFragment) -> SQLFragment { "\(text) COLLATE \"C\"" }
    func floatingPoint(_ value: SQLFragment) -> SQLFragment { "CAST(\(value) AS double precision)" }
    // `bigint` arithmetic fails on overflow, where the evaluator goes on in floating point.
    func arithmeticOperand(_ value: SQLFragment) -> SQLFragment { "CAST(\(value) AS numeric)" }
    func total(_ value: SQLFragment) -> SQLFragment { "COALESCE(SUM(\(value)), 0)" }
    // `CAST(… AS bigint)` rounds half away from zero and fails out of range; SQLite's cast cuts
    // toward zero and saturates at the 64-bit limits.
    func wholeNumber(_ value: SQLFragment) -> SQLFragment {
        // Not LEAST/GREATEST, which pass over a NULL instead of giving it.
        let number: SQLFragment = "CAST(\(value) AS numeric)"
        return "CAST(trunc(CASE WHEN \(number) > 9223372036854775807 THEN 9223372036854775807 WHEN \(number) < -9223372036854775808 THEN -9223372036854775808 ELSE \(number) END) AS bigint)"
    }
    // A comparison is a boolean here, which a bigint column takes only through an integer.
    func truthValue(_ value: SQLFragment) -> SQLFragment { "CAST((\(value) <> 0) AS integer)" }
    // `char_length` counts code points; each one outside the Basic Multilingual Plane counts
    // once more, as what is left once every BMP character is removed.
    func utf16Length(_ text: SQLFragment) -> SQLFragment {
        "(char_length(\(text)) + char_length(regexp_replace(\(text), '[\\u0001-\\uffff]', '', 'g')))"
    }
    var marksExternalBinaryData: Bool { false }

    func scalarTest(
        _ type: NSComparisonPredicate.Operator, _ column: SQLFragment, _ pattern: String, evaluated: SQLFragment?
    ) -> SQLFragment? {
        // PostgreSQL's text holds no NUL character, and its LIKE compares characters: Unicode
        // scalars, as the evaluator does.
        guard let like = SQLLikePattern.like(type, pattern) else { return nil }
        return "\(column) LIKE \(bind: .text(like)) COLLATE \"C\""
    }

    /// A statement's text with `$n` parameters and its values as the session sends them, after
    /// the parameters `leading` binds first (a batch update's new values).
    ///
    /// - Parameters:
    ///   - fragment: The statement, or the part of it after the leading parameters.
    ///   - leading: Values whose `$1`… come before the fragment's.
    /// - Returns: The text and every value it binds, `leading` first.
    /// - Complexity: O(n) in the length of the text.
    static func render(_ fragment: SQLFragment, after leading: [PostgreSQLValue] = []) -> (sql: String, binds: [PostgreSQLValue]) {
        let sql = fragment.text { index, value in
            let number = leading.count + index
            return switch value {
            case .uuid: "$\(number)::uuid"
            case .decimal: "$\(number)::numeric"
            default: "$\(number)"
            }
        }
        return (sql, leading + fragment.values.map(Self.value))
    }

    /// A bound value as postgres-nio sends it: a UUID and a decimal as text, cast where bound.
    static func value(_ value: SQLValue) -> PostgreSQLValue {
        switch value {
        case .null: .null
        case .integer(let x): .integer(x)
        case .real(let x): .real(x)
        case .text(let x): .text(x)
        case .blob(let x): .bytes(x)
        case .uuid(let x): .text(x.uuidString)
        case .decimal(let x): .text(x.description)
        }
    }
}
