import Foundation

/// Core Data's LIKE and MATCHES patterns as SQL can answer them without calling back into
/// Swift: the literal text a pattern begins with (a range of the column), and a LIKE pattern as
/// a GLOB pattern. Both only for patterns compared without case or diacritic folding, where the
/// evaluator compares Unicode scalars as SQLite compares UTF-8.
package enum SQLLikePattern {
    /// The literal text before the first wildcard of a LIKE pattern (`*` any run, `?` one
    /// character, `\\` escapes the next); the whole pattern when it has no wildcard. Nil when
    /// the prefix is empty.
    package static func literalPrefix(_ pattern: String) -> String? {
        var prefix = ""
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                prefix.unicodeScalars.append(scalar)
                escaping = false
                continue
            }
            switch scalar {
            case "\\": escaping = true
            case "*", "?": return prefix.isEmpty ? nil : prefix
            default: prefix.unicodeScalars.append(scalar)
            }
        }
        // A trailing lone backslash escapes nothing and is compared as itself by the evaluator.
        if escaping { prefix.append("\\") }
        return prefix.isEmpty ? nil : prefix
    }

    /// The GLOB pattern selecting what the LIKE pattern selects: the same wildcards, GLOB's own
    /// special characters (and LIKE's escaped wildcards) taken literally through one-character
    /// classes. Nil for a pattern with a NUL character, where GLOB would stop.
    package static func glob(_ pattern: String) -> String? {
        guard !pattern.unicodeScalars.contains("\u{0}") else { return nil }
        return translate(pattern, any: "*", one: "?", literal: literal)
    }

    /// A LIKE pattern in another pattern language: its wildcards as `any` and `one`, everything
    /// else (an escaped character, a trailing lone backslash) through `literal`.
    private static func translate(_ pattern: String, any: String, one: String, literal: (Unicode.Scalar) -> String) -> String {
        var result = ""
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                result += literal(scalar)
                escaping = false
                continue
            }
            switch scalar {
            case "\\": escaping = true
            case "*": result += any
            case "?": result += one
            default: result += literal(scalar)
            }
        }
        if escaping { result += literal("\\") }
        return result
    }

    /// One scalar taken literally in a GLOB pattern.
    private static func literal(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "*", "?", "[": "[\(scalar)]"
        default: String(scalar)
        }
    }

    /// The SQL LIKE pattern (`%`, `_`, escaped by `\\`) selecting, character by character, what
    /// BEGINSWITH, ENDSWITH, CONTAINS or LIKE with `pattern` selects; nil for another operator.
    package static func like(_ type: NSComparisonPredicate.Operator, _ pattern: String) -> String? {
        let literal: (Unicode.Scalar) -> String = { "%_\\".unicodeScalars.contains($0) ? "\\\($0)" : String($0) }
        let text = pattern.unicodeScalars.map(literal).joined()
        switch type {
        case .beginsWith: return text + "%"
        case .endsWith: return "%" + text
        case .contains: return "%" + text + "%"
        case .like: return translate(pattern, any: "%", one: "_", literal: literal)
        default: return nil
        }
    }

    /// The literal text every string a regular expression (ICU's syntax, matched against the
    /// whole string as MATCHES does) must begin with; nil when there is none, or when the
    /// expression has an alternative (`|`) that could begin otherwise.
    package static func regexLiteralPrefix(_ pattern: String) -> String? {
        guard !pattern.unicodeScalars.contains("|") else { return nil }
        var prefix = String.UnicodeScalarView()
        for scalar in pattern.unicodeScalars {
            // Outside a class every character but these stands for itself (a flag such as (?x),
            // which gives spaces a meaning, would begin with "(").
            guard !"\\^$.|?*+()[]{}".unicodeScalars.contains(scalar) else {
                // A quantifier makes the character before it optional or repeated.
                if scalar == "*" || scalar == "?" || scalar == "{", !prefix.isEmpty { prefix.removeLast() }
                break
            }
            prefix.append(scalar)
        }
        return prefix.isEmpty ? nil : String(prefix)
    }
}
