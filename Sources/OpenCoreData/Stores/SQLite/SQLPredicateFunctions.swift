import GRDB
import GRDBSQLite

/// The SQL functions and collations predicates and sort descriptors compile to, registered on
/// every connection of the store so that SQL folds, matches and orders exactly as the in-memory
/// evaluator does: each one calls the evaluator's own Swift code.
///
/// The functions are registered through SQLite's C API rather than GRDB's `DatabaseFunction`
/// because GRDB reads text arguments as C strings, cutting them at the first NUL character; these
/// read every text with its length, as the store reads its rows.
enum SQLPredicateFunctions {
    /// `OCD_FOLD(text, flags)`, `OCD_MATCHES(text, pattern, flags)`, `OCD_STRING(text, pattern,
    /// operator, flags)` and `OCD_IS_SINGLE_LINE(text)`, as `SQLEvaluatorFunctions` describes them.
    /// `OCD_IS_SINGLE_LINE` is 1 for text with neither a NUL character nor one of ICU's line
    /// terminators (LF, VT, FF, CR, NEL, LS, PS).
    static let names = SQLEvaluatorFunctions(
        fold: "OCD_FOLD", matches: "OCD_MATCHES", string: "OCD_STRING", isSingleLine: "OCD_IS_SINGLE_LINE")

    /// `OCD_UTF16_LENGTH(text)`: the text's length in UTF-16 code units; NULL for NULL.
    static let utf16Length = "OCD_UTF16_LENGTH"

    /// Registers the functions and collations on one connection.
    static func register(on db: Database) {
        let connection = db.sqliteConnection
        let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(connection, names.fold, 2, deterministic, nil, { context, _, arguments in
            guard let text = SQLPredicateFunctions.text(arguments?[0]) else { return sqlite3_result_null(context) }
            let flags = sqlite3_value_int(arguments?[1])
            SQLPredicateFunctions.result(ValueComparison.fold(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0), context)
        }, nil, nil, nil)
        sqlite3_create_function_v2(connection, names.matches, 3, deterministic, nil, { context, _, arguments in
            guard let text = SQLPredicateFunctions.text(arguments?[0]), let pattern = SQLPredicateFunctions.text(arguments?[1]) else {
                return sqlite3_result_int(context, 0)
            }
            let flags = sqlite3_value_int(arguments?[2])
            let matches = RegexCache.shared.matches(text, pattern: pattern, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
            sqlite3_result_int(context, matches ? 1 : 0)
        }, nil, nil, nil)
        sqlite3_create_function_v2(connection, names.string, 4, deterministic, nil, { context, _, arguments in
            guard let text = SQLPredicateFunctions.bytes(arguments?[0]), let pattern = SQLPredicateFunctions.bytes(arguments?[1]),
                let type = NSComparisonPredicate.Operator(rawValue: UInt(sqlite3_value_int(arguments?[2])))
            else { return sqlite3_result_int(context, 0) }
            let flags = sqlite3_value_int(arguments?[3])
            // ASCII on its bytes (one call a row, where a test for ASCII and SQL's LIKE were two);
            // anything else as strings.
            let holds =
                PredicateEvaluator.asciiStringOperator(type, text, pattern, flags & 1 != 0)
                ?? PredicateEvaluator.stringOperator(
                    type, String(decoding: text, as: UTF8.self), String(decoding: pattern, as: UTF8.self), flags & 1 != 0, flags & 2 != 0)
            sqlite3_result_int(context, holds ? 1 : 0)
        }, nil, nil, nil)
        // Run on every row a pattern is tested on: a byte loop in one call, where SQLite's own
        // `length()`, `CAST` and `instr()` took a call each (about 30 ns apiece).
        sqlite3_create_function_v2(connection, names.isSingleLine, 1, deterministic, nil, { context, _, arguments in
            let bytes = SQLPredicateFunctions.bytes(arguments?[0])
            sqlite3_result_int(context, bytes.map(SQLPredicateFunctions.isSingleLine) == true ? 1 : 0)
        }, nil, nil, nil)
        sqlite3_create_function_v2(connection, utf16Length, 1, deterministic, nil, { context, _, arguments in
            guard let bytes = SQLPredicateFunctions.bytes(arguments?[0]) else { return sqlite3_result_null(context) }
            // One unit per UTF-8 sequence, two for a four-byte one (outside the BMP): count
            // every byte that starts a sequence, and the four-byte starts once more.
            var units: Int64 = 0
            for byte in bytes where byte & 0xC0 != 0x80 { units += byte >= 0xF0 ? 2 : 1 }
            sqlite3_result_int64(context, units)
        }, nil, nil, nil)
        // GRDB's collations read both strings with their lengths.
        for comparison in SortComparison.allCases {
            guard let name = comparison.collationName else { continue }
            db.add(collation: DatabaseCollation(name) { a, b in comparison.compare(a, b) })
        }
    }

    /// A text argument's UTF-8 bytes, with their length; nil for NULL.
    private static func bytes(_ value: OpaquePointer?) -> UnsafeBufferPointer<UInt8>? {
        guard let value, sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
    }

    /// Whether `bytes` (UTF-8) hold no NUL and none of LF, VT, FF, CR (0A–0D), NEL (C2 85),
    /// LS and PS (E2 80 A8, E2 80 A9).
    static func isSingleLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0, 0x0A...0x0D: return false
            case 0xC2: if index + 1 < bytes.count, bytes[index + 1] == 0x85 { return false }
            case 0xE2:
                if index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 { return false }
            default: break
            }
            index += 1
        }
        return true
    }

    /// A text argument, read with its length; nil for NULL.
    private static func text(_ value: OpaquePointer?) -> String? {
        guard let value, sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    private static func result(_ string: String, _ context: OpaquePointer?) {
        // A trailing NUL keeps the buffer's address non-nil for the empty string, which SQLite
        // would otherwise take for NULL; the length leaves it out.
        let bytes = Array(string.utf8) + [0]
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                sqlite3_result_text(context, characters.baseAddress, Int32(characters.count - 1), SQLiteBind.transient)
            }
        }
    }
}
