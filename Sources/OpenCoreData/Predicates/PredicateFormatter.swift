/// Prints predicates and expressions in Apple's canonical format syntax: `name == "x"`,
/// `count BETWEEN {1, 5}`, `(a == 1 OR b == 2) AND c == 3`. What it prints parses back to an
/// equal predicate (dates print as `CAST(<seconds since 2001>, "NSDate")`, as Apple prints them).
package enum PredicateFormatter {
    package static func format(_ predicate: Foundation.NSPredicate) -> String {
        switch predicate {
        case let comparison as NSComparisonPredicate: return format(comparison)
        case let compound as NSCompoundPredicate: return format(compound)
        default:
            switch PredicateKind(predicate) {
            case .truePredicate: return "TRUEPREDICATE"
            case .falsePredicate: return "FALSEPREDICATE"
            case .block, .other: return "BLOCKPREDICATE"
            }
        }
    }

    private static func format(_ compound: NSCompoundPredicate) -> String {
        let parts = compound.subpredicates.map { sub -> String in
            let predicate = sub
            let text = format(predicate)
            return predicate is NSCompoundPredicate ? "(\(text))" : text
        }
        switch compound.compoundPredicateType {
        case .and: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
        case .or: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
        case .not: return "NOT " + (parts.first ?? "TRUEPREDICATE")
        @unknown default: return parts.joined(separator: " ")
        }
    }

    private static func format(_ comparison: NSComparisonPredicate) -> String {
        var text = ""
        switch comparison.comparisonPredicateModifier {
        case .any: text = "ANY "
        case .all: text = "ALL "
        case .direct: break
        }
        text += format(comparison.leftExpression) + " " + operatorName(comparison.predicateOperatorType)
        let options = comparison.options
        if !options.isEmpty {
            text += "["
            if options.contains(.caseInsensitive) { text += "c" }
            if options.contains(.diacriticInsensitive) { text += "d" }
            if options.contains(.normalized) { text += "n" }
            text += "]"
        }
        return text + " " + format(comparison.rightExpression)
    }

    static func operatorName(_ type: NSComparisonPredicate.Operator) -> String {
        switch type {
        case .lessThan: "<"
        case .lessThanOrEqualTo: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqualTo: ">="
        case .equalTo: "=="
        case .notEqualTo: "!="
        case .matches: "MATCHES"
        case .like: "LIKE"
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .in: "IN"
        case .customSelector: "CUSTOMSELECTOR"
        case .contains: "CONTAINS"
        case .between: "BETWEEN"
        }
    }

    private static let infixOperators = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
        "bitwiseAnd:with:": "&", "bitwiseOr:with:": "|", "bitwiseXor:with:": "^", "leftshift:by:": "<<", "rightshift:by:": ">>",
    ]

    package static func format(_ expression: NSExpression) -> String {
        switch expression.storage {
        case .constant(let value): return formatConstant(value)
        case .evaluatedObject: return "SELF"
        case .anyKey: return "ANYKEY"
        case .variable(let name): return "$" + name
        case .keyPath(let path): return formatKeyPath(path)
        case .aggregate(let items): return "{" + items.map(format).joined(separator: ", ") + "}"
        case .function(IndexSymbol.functionName, let arguments) where arguments.count == 2:
            let index = (arguments[1].constantIfAny as? IndexSymbol)?.rawValue ?? format(arguments[1])
            return operand(arguments[0]) + "[" + index + "]"
        case .function(CastType.functionName, let arguments) where arguments.count == 2:
            return "CAST(\(format(arguments[0])), \(format(arguments[1])))"
        case .function("onesComplement:", let arguments) where arguments.count == 1:
            return "~" + operand(arguments[0])
        case .function(let name, let arguments):
            if let symbol = infixOperators[name], arguments.count == 2 {
                // Nested arithmetic is parenthesized so that it parses back to the same tree.
                let operands = arguments.map { argument -> String in
                    if case .function(let inner, _) = argument.storage, infixOperators[inner] != nil {
                        return "(" + format(argument) + ")"
                    }
                    return format(argument)
                }
                return operands[0] + " " + symbol + " " + operands[1]
            }
            let base = name.hasSuffix(":") ? String(name.dropLast()) : name
            return base + "(" + arguments.map(format).joined(separator: ", ") + ")"
        case .operandKeyPath(let base, let path):
            return operand(base) + "." + formatKeyPath(path)
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(format(collection)), $\(variable), \(format(predicate)))"
        case .conditional(let predicate, let a, let b):
            return "TERNARY(\(format(predicate)), \(format(a)), \(format(b)))"
        case .method(let target, NSExpression.valueForKeyPathSelector, let arguments) where arguments.count == 1 && arguments[0].expressionType == .variable:
            // `$a.$b` as it was written.
            return operand(target) + ".$" + arguments[0].variable
        case .method(let target, let name, let arguments):
            return "FUNCTION(" + ([format(target), quote(name)] + arguments.map(format)).joined(separator: ", ") + ")"
        case .setOperation(let type, let a, let b):
            let word = type == .unionSet ? "UNION" : (type == .intersectSet ? "INTERSECT" : "MINUS")
            return "\(format(a)) \(word) \(format(b))"
        }
    }

    /// An expression a postfix (`[…]`, `.key`) applies to: arithmetic needs parentheses.
    private static func operand(_ expression: NSExpression) -> String {
        if case .function(let name, _) = expression.storage, infixOperators[name] != nil { return "(" + format(expression) + ")" }
        let text = format(expression)
        // A negative constant is a unary minus when read back: `-2 ** 2` and `-1[x]` bind the
        // operator first, so the constant keeps its parentheses.
        if case .constant = expression.storage, text.hasPrefix("-") { return "(" + text + ")" }
        return text
    }

    /// A key path with reserved words escaped by `#`; collection operators stay as they are.
    static func formatKeyPath(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { component in
            // A reserved word, or a key that starts with a digit (which would read as a number),
            // needs the escape.
            PredicateParser.reservedWords.contains(component.uppercased()) || component.first?.isNumber == true
                ? "#" + component : String(component)
        }.joined(separator: ".")
    }

    static func formatConstant(_ value: Any?) -> String {
        let normalized = ValueComparison.normalize(value)
        switch normalized {
        case nil: return "nil"
        case let string as String: return quote(string)
        case let n as Int64: return String(n)
        // Infinities and NaN have no literal: a cast of their spelling reads back as the number.
        case let d as Double: return d.isFinite ? "\(d)" : "CAST(\"\(d)\", \"NSNumber\")"
        // Decimals and data have no literal either: a cast of a string that holds them exactly
        // (OpenCoreData reads these casts back; Apple's parser has no NSData or decimal cast).
        case let d as Decimal: return d.isNaN ? "CAST(\"nan\", \"NSNumber\")" : "CAST(\"\(d)\", \"NSDecimalNumber\")"
        case let date as Date: return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let uuid as UUID: return "CAST(\"\(uuid.uuidString)\", \"UUID\")"
        case let data as Data: return "CAST(\"\(data.base64EncodedString())\", \"NSData\")"
        default: break
        }
        if let items = ValueComparison.collectionElements(normalized!) {
            return "{" + items.map(formatConstant).joined(separator: ", ") + "}"
        }
        // Apple's format has no dictionary literal; `{key: value, …}` is OpenCoreData's, which it
        // reads back. Printed by its constants rather than through Foundation's description,
        // which traps on some values (a date whose interval is NaN).
        var entries: [(key: String, value: String)]?
        if let dictionary = normalized as? [AnyHashable: Any] {
            entries = dictionary.map { (formatConstant($0.key.base), formatConstant($0.value)) }
        } else if let dictionary = normalized as? NSDictionary {
            entries = []
            dictionary.enumerateKeysAndObjects { key, value, _ in entries?.append((formatConstant(key), formatConstant(value))) }
        }
        if let entries {
            return "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
        return "\(normalized!)"
    }

    /// A double-quoted string literal with the escapes the lexer reads back.
    static func quote(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\0": result += "\\0"
            default:
                if scalar.value < 0x20 {
                    result += String(format: "\\u%04x", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
