import GRDB

/// The SQL functions and collations predicates and sort descriptors compile to, registered on
/// every connection of the store so that SQL folds, matches and orders exactly as the in-memory
/// evaluator does: each one calls the evaluator's own Swift code.
enum SQLPredicateFunctions {
    static let foldName = "OCD_FOLD"
    static let matchesName = "OCD_MATCHES"

    /// 1 for case-insensitive, 2 for diacritic-insensitive, as the functions read them.
    static func flags(_ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> Int {
        (caseInsensitive ? 1 : 0) | (diacriticInsensitive ? 2 : 0)
    }

    /// Registers the functions and collations on one connection.
    static func register(on db: Database) {
        db.add(function: fold())
        db.add(function: matches())
        for comparison in SortComparison.allCases {
            guard let name = comparison.collationName else { continue }
            db.add(collation: DatabaseCollation(name) { a, b in comparison.compare(a, b) })
        }
    }

    /// `OCD_FOLD(text, flags)`: the text with case and / or diacritics folded; NULL stays NULL.
    static func fold() -> DatabaseFunction {
        DatabaseFunction(foldName, argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]) else { return nil }
            let flags = Int.fromDatabaseValue(values[1]) ?? 0
            return ValueComparison.fold(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
        }
    }

    /// `OCD_MATCHES(text, pattern, flags)`: 1 when the whole text matches the ICU regular
    /// expression, else 0 (NULL text included).
    static func matches() -> DatabaseFunction {
        DatabaseFunction(matchesName, argumentCount: 3, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return 0 }
            let flags = Int.fromDatabaseValue(values[2]) ?? 0
            return RegexCache.shared.matches(text, pattern: pattern, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0) ? 1 : 0
        }
    }
}
