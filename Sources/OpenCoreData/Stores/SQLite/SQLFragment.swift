import GRDB

/// SQL text together with the values bound to its `?` placeholders, in text order.
///
/// Built by string interpolation: `"\(column) > \(bind: value)"` appends a `?` and the value,
/// `"\(fragment)"` splices another fragment with its values, and `"\(raw: name)"` appends an
/// identifier the store derived from the model. A value can therefore only reach SQL as a
/// parameter, and a fragment used twice (a subquery in `x > ? AND x IS NOT NULL`) brings its
/// values twice, in the right places.
struct SQLFragment: ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var sql: String
    private(set) var values: [(any DatabaseValueConvertible)?]

    init(stringLiteral value: String) {
        sql = value
        values = []
    }

    init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
        values = stringInterpolation.values
    }

    /// A fragment of model-derived SQL text (table, alias and column names) with no values.
    init(raw sql: String) {
        self.sql = sql
        values = []
    }

    var description: String { sql }
    var isEmpty: Bool { sql.isEmpty }
    var arguments: StatementArguments { StatementArguments(values) }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment { "\(lhs)\(rhs)" }

    static func += (lhs: inout SQLFragment, rhs: SQLFragment) { lhs = lhs + rhs }

    /// The fragments joined with `separator` (model-derived text such as `" AND "`).
    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result: SQLFragment = ""
        for (index, part) in parts.enumerated() {
            if index > 0 { result.sql += separator }
            result += part
        }
        return result
    }

    struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var values: [(any DatabaseValueConvertible)?] = []

        init(literalCapacity: Int, interpolationCount: Int) { sql.reserveCapacity(literalCapacity) }

        mutating func appendLiteral(_ literal: String) { sql += literal }

        mutating func appendInterpolation(_ fragment: SQLFragment) {
            sql += fragment.sql
            values += fragment.values
        }

        /// A bound parameter.
        mutating func appendInterpolation(bind value: (any DatabaseValueConvertible)?) {
            // GRDB binds text as a C string, cutting it at a NUL character; such text goes in
            // as its UTF-8 bytes, turned back into the same text by SQLite.
            if let string = value as? String, string.utf8.contains(0) {
                sql += "CAST(? AS TEXT)"
                values.append(Data(string.utf8))
                return
            }
            sql += "?"
            values.append(value)
        }

        /// Text derived from the model (identifiers, numbers the store computed), never user input.
        mutating func appendInterpolation(raw text: String) { sql += text }

        /// An integer the store computed (entity numbers, flags).
        mutating func appendInterpolation(raw number: Int) { sql += String(number) }
    }
}

/// Hands out table aliases unique within one statement, shared by nested subqueries.
final class SQLAliases {
    private var count = 0

    func next(_ prefix: String) -> String {
        count += 1
        return prefix + String(count)
    }
}
