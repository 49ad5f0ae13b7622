import Foundation

/// SQL text together with the values bound to its placeholders, in text order.
///
/// Built by string interpolation: `"\(column) > \(bind: value)"` appends a placeholder and the
/// value, `"\(fragment)"` splices another fragment with its values, and `"\(raw: name)"` appends
/// an identifier the store derived from the model. A value can therefore only reach SQL as a
/// parameter, and a fragment used twice (a subquery in `x > ? AND x IS NOT NULL`) brings its
/// values twice, in the right places.
///
/// The text holds SQLite's placeholder, `?`, which is what the SQLite store runs; another dialect
/// renders it with `text(placeholder:)`, which finds the placeholders by position rather than by
/// searching the text.
package struct SQLFragment: ExpressibleByStringInterpolation, CustomStringConvertible, Sendable {
    package private(set) var sql: String
    package private(set) var values: [SQLValue]
    /// Where each placeholder stands in `sql`, as UTF-8 offsets.
    private var placeholders: [Int]

    package init(stringLiteral value: String) {
        sql = value
        values = []
        placeholders = []
    }

    package init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
        values = stringInterpolation.values
        placeholders = stringInterpolation.placeholders
    }

    /// A fragment of model-derived SQL text (table, alias and column names) with no values.
    package init(raw sql: String) {
        self.sql = sql
        values = []
        placeholders = []
    }

    package var description: String { sql }
    package var isEmpty: Bool { sql.isEmpty }

    package static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment { "\(lhs)\(rhs)" }

    package static func += (lhs: inout SQLFragment, rhs: SQLFragment) { lhs = lhs + rhs }

    /// The fragments joined with `separator` (model-derived text such as `" AND "`).
    package static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: parts.count)
        for (index, part) in parts.enumerated() {
            if index > 0 { interpolation.appendLiteral(separator) }
            interpolation.appendInterpolation(part)
        }
        return SQLFragment(stringInterpolation: interpolation)
    }

    /// The text with each placeholder replaced by what `placeholder` makes of its number (from 1)
    /// and value: `$1`, `$2::uuid`…
    ///
    /// - Complexity: O(n) in the length of the text.
    package func text(placeholder: (Int, SQLValue) -> String) -> String {
        guard !placeholders.isEmpty else { return sql }
        let bytes = Array(sql.utf8)
        var result = ""
        result.reserveCapacity(bytes.count + placeholders.count * 4)
        var start = 0
        for (index, offset) in placeholders.enumerated() {
            result += String(decoding: bytes[start..<offset], as: UTF8.self)
            result += placeholder(index + 1, values[index])
            start = offset + 1
        }
        result += String(decoding: bytes[start...], as: UTF8.self)
        return result
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var values: [SQLValue] = []
        var placeholders: [Int] = []

        package init(literalCapacity: Int, interpolationCount: Int) { sql.reserveCapacity(literalCapacity) }

        package mutating func appendLiteral(_ literal: String) { sql += literal }

        package mutating func appendInterpolation(_ fragment: SQLFragment) {
            let shift = sql.utf8.count
            sql += fragment.sql
            values += fragment.values
            placeholders += fragment.placeholders.map { $0 + shift }
        }

        /// A bound parameter.
        package mutating func appendInterpolation(bind value: SQLValue) {
            // SQLite's driver binds text as a C string, cutting it at a NUL character; such text
            // goes in as its UTF-8 bytes, turned back into the same text by the cast.
            if case .text(let string) = value, string.utf8.contains(0) {
                sql += "CAST("
                placeholder(.blob(Data(string.utf8)))
                sql += " AS TEXT)"
                return
            }
            placeholder(value)
        }

        private mutating func placeholder(_ value: SQLValue) {
            placeholders.append(sql.utf8.count)
            sql += "?"
            values.append(value)
        }

        /// Text derived from the model (identifiers, numbers the store computed), never user input.
        package mutating func appendInterpolation(raw text: String) { sql += text }

        /// An integer the store computed (entity numbers, flags).
        package mutating func appendInterpolation(raw number: Int) { sql += String(number) }
    }
}

/// Hands out table aliases unique within one statement, shared by nested subqueries.
package final class SQLAliases {
    private var count = 0

    package init() {}

    package func next(_ prefix: String) -> String {
        count += 1
        return prefix + String(count)
    }
}
