/// In-memory evaluation of comparison predicates and expressions, comparing as Apple compares:
/// numbers across integer, floating and boolean types, strings with case / diacritic folding,
/// dates, nil equal only to nil and never ordered.
///
/// The SQLite store compiles the same predicates to SQL; the SQL functions it registers call the
/// same string helpers (`fold`, `stringOperator`, `matches`) so both select the same objects.
package enum PredicateEvaluator {
    static func evaluate(_ predicate: NSComparisonPredicate, object: Any?, bindings: [String: Any]?) -> Bool {
        let left = value(of: predicate.leftExpression, object: object, bindings: bindings)
        let right = value(of: predicate.rightExpression, object: object, bindings: bindings)
        let type = predicate.predicateOperatorType
        let options = predicate.options
        switch predicate.comparisonPredicateModifier {
        case .direct:
            return compare(left, right, type, options)
        case .any:
            guard let items = left.flatMap(ValueComparison.collectionElements) else { return compare(left, right, type, options) }
            return items.contains { compare($0, right, type, options) }
        case .all:
            guard let items = left.flatMap(ValueComparison.collectionElements) else { return compare(left, right, type, options) }
            return items.allSatisfy { compare($0, right, type, options) }
        }
    }

    /// The value of `expression` for `object`.
    package static func value(of expression: NSExpression, object: Any?, bindings: [String: Any]?) -> Any? {
        switch expression.storage {
        case .constant(let value): return value
        case .evaluatedObject: return object
        case .variable(let name): return bindings?[name]
        case .keyPath(let path): return KeyValueReader.value(atKeyPath: path, of: object)
        case .aggregate(let items): return items.map { value(of: $0, object: object, bindings: bindings) }
        case .anyKey: return nil
        case .function(let name, let arguments):
            return function(name, arguments.map { value(of: $0, object: object, bindings: bindings) })
        case .operandKeyPath(let operand, let path):
            return KeyValueReader.value(atKeyPath: path, of: value(of: operand, object: object, bindings: bindings))
        case .subquery(let collection, let variable, let predicate):
            return subquery(value(of: collection, object: object, bindings: bindings), variable, predicate, bindings)
        case .conditional(let predicate, let a, let b):
            let holds = predicate.evaluate(with: object, substitutionVariables: bindings ?? [:])
            return value(of: holds ? a : b, object: object, bindings: bindings)
        case .method(let target, let name, let arguments):
            return ExpressionFunctions.call(
                name, on: value(of: target, object: object, bindings: bindings),
                arguments.map { value(of: $0, object: object, bindings: bindings) })
        case .setOperation(let type, let a, let b):
            return setOperation(type, value(of: a, object: object, bindings: bindings), value(of: b, object: object, bindings: bindings))
        }
    }

    /// The elements of `collection` for which `predicate` holds, each evaluated as the object with
    /// `$variable` bound to it (so `$x.name` and `name` read the same element).
    private static func subquery(_ collection: Any?, _ variable: String, _ predicate: Foundation.NSPredicate, _ bindings: [String: Any]?) -> [Any?] {
        let items = collection.map { ValueComparison.collectionElements($0) ?? [$0] } ?? []
        var inner = bindings ?? [:]
        return items.filter { item in
            inner[variable] = item ?? NSNull()
            return predicate.evaluate(with: item, substitutionVariables: inner)
        }
    }

    /// UNION, INTERSECT and MINUS, keeping the left collection's order and dropping duplicates.
    private static func setOperation(_ type: NSExpression.ExpressionType, _ left: Any?, _ right: Any?) -> [Any?]? {
        guard let a = left.flatMap(ValueComparison.collectionElements), let b = right.flatMap(ValueComparison.collectionElements) else {
            return nil
        }
        func contains(_ items: [Any?], _ item: Any?) -> Bool { items.contains { ValueComparison.isEqual($0, item) } }
        let candidates: [Any?] =
            switch type {
            case .unionSet: a + b
            case .intersectSet: a.filter { contains(b, $0) }
            default: a.filter { !contains(b, $0) }
            }
        var result: [Any?] = []
        for item in candidates where !contains(result, item) { result.append(item) }
        return result
    }

    // MARK: Operators

    package static func compare(
        _ left: Any?, _ right: Any?, _ type: NSComparisonPredicate.Operator, _ options: NSComparisonPredicate.Options
    ) -> Bool {
        let ci = options.contains(.caseInsensitive)
        let di = options.contains(.diacriticInsensitive)
        switch type {
        case .equalTo:
            return ValueComparison.isEqual(left, right, caseInsensitive: ci, diacriticInsensitive: di)
        case .notEqualTo:
            return !ValueComparison.isEqual(left, right, caseInsensitive: ci, diacriticInsensitive: di)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let order = ordering(left, right, ci, di) else { return false }
            switch type {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith, .like, .matches:
            guard let (text, pattern) = strings(left, right) else { return false }
            return stringOperator(type, text, pattern, ci, di)
        case .contains:
            if let items = left.flatMap(ValueComparison.collectionElements) {
                return items.contains { ValueComparison.isEqual($0, right, caseInsensitive: ci, diacriticInsensitive: di) }
            }
            guard let (text, pattern) = strings(left, right) else { return false }
            return stringOperator(.contains, text, pattern, ci, di)
        case .in:
            if let items = right.flatMap(ValueComparison.collectionElements) {
                return items.contains { ValueComparison.isEqual(left, $0, caseInsensitive: ci, diacriticInsensitive: di) }
            }
            guard let (text, pattern) = strings(right, left) else { return false }
            return stringOperator(.contains, text, pattern, ci, di)
        case .between:
            guard let bounds = right.flatMap(ValueComparison.collectionElements), bounds.count == 2,
                let low = ordering(left, bounds[0], ci, di), let high = ordering(left, bounds[1], ci, di)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .customSelector:
            return false
        }
    }

    /// Ordering for `<`, `<=`, `>`, `>=`, `BETWEEN`: nil when either side is nil or the kinds do
    /// not compare, so that such comparisons are false.
    private static func ordering(_ left: Any?, _ right: Any?, _ ci: Bool, _ di: Bool) -> ComparisonResult? {
        guard let a = ValueComparison.normalize(left), let b = ValueComparison.normalize(right) else { return nil }
        return ValueComparison.compare(a, b, caseInsensitive: ci, diacriticInsensitive: di)
    }

    private static func strings(_ left: Any?, _ right: Any?) -> (String, String)? {
        guard let a = ValueComparison.normalize(left) as? String, let b = ValueComparison.normalize(right) as? String else { return nil }
        return (a, b)
    }

    /// BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES on two strings. Both are folded first, then
    /// compared by Unicode scalars. The SQLite store registers this very function
    /// (`SQLPredicateFunctions`), so SQL and memory agree to the character.
    static func stringOperator(
        _ type: NSComparisonPredicate.Operator, _ text: String, _ pattern: String, _ ci: Bool, _ di: Bool
    ) -> Bool {
        if type == .matches { return RegexCache.shared.matches(text, pattern: pattern, caseInsensitive: ci, diacriticInsensitive: di) }
        let t = Array(ValueComparison.fold(text, caseInsensitive: ci, diacriticInsensitive: di).unicodeScalars)
        let p = Array(ValueComparison.fold(pattern, caseInsensitive: ci, diacriticInsensitive: di).unicodeScalars)
        return compare(type, t, p, star: "*", one: "?", escape: "\\")
    }

    /// `stringOperator` on the UTF-8 bytes of an ASCII text and pattern, making no string: folding
    /// ASCII changes only its case (diacritic folding leaves it as it is), so the folded scalars are
    /// the bytes, lowercased when case is folded. Nil when either is not ASCII, or for MATCHES.
    ///
    /// - Complexity: O(text × pattern) for LIKE and CONTAINS, O(pattern) otherwise.
    static func asciiStringOperator(
        _ type: NSComparisonPredicate.Operator, _ text: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>, _ ci: Bool
    ) -> Bool? {
        guard type != .matches, text.allSatisfy({ $0 < 0x80 }), pattern.allSatisfy({ $0 < 0x80 }) else { return nil }
        let star = UInt8(ascii: "*"), one = UInt8(ascii: "?"), escape = UInt8(ascii: "\\")
        guard ci else { return compare(type, text, pattern, star: star, one: one, escape: escape) }
        let lower = { (byte: UInt8) in byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        return compare(type, text.lazy.map(lower), pattern.lazy.map(lower), star: star, one: one, escape: escape)
    }

    /// BEGINSWITH, ENDSWITH, CONTAINS or LIKE on folded text and pattern, element by element.
    private static func compare<T: RandomAccessCollection, P: RandomAccessCollection>(
        _ type: NSComparisonPredicate.Operator, _ t: T, _ p: P, star: T.Element, one: T.Element, escape: T.Element
    ) -> Bool where T.Element == P.Element, T.Element: Equatable, T.Index == Int, P.Index == Int {
        // An empty string begins, ends or is contained in no string, as NSString's `hasPrefix:`
        // and `rangeOfString:` answer on Apple platforms (Swift's `hasPrefix("")` answers true).
        if p.isEmpty, type != .like { return false }
        switch type {
        case .beginsWith: return t.starts(with: p)
        case .endsWith: return t.reversed().starts(with: p.reversed())
        case .contains:
            guard p.count <= t.count else { return false }
            let first = t.startIndex
            return (0...(t.count - p.count)).contains { t[(first + $0)..<(first + $0 + p.count)].elementsEqual(p) }
        case .like: return like(t, p, star: star, one: one, escape: escape)
        default: return false
        }
    }

    /// LIKE: `star` matches any run of elements, `one` exactly one, `escape` makes the next one
    /// literal (`*`, `?` and `\` in a pattern).
    private static func like<T: RandomAccessCollection, P: RandomAccessCollection>(
        _ text: T, _ pattern: P, star: T.Element, one: T.Element, escape: T.Element
    ) -> Bool where T.Element == P.Element, T.Element: Equatable, T.Index == Int, P.Index == Int {
        let text0 = text.startIndex, pattern0 = pattern.startIndex
        var t = 0
        var p = 0
        var starred: (pattern: Int, text: Int)?
        while t < text.count {
            if p < pattern.count {
                let element = pattern[pattern0 + p]
                if element == star {
                    starred = (p, t)
                    p += 1
                    continue
                } else if element == one {
                    t += 1
                    p += 1
                    continue
                } else if element == escape, p + 1 < pattern.count {
                    if pattern[pattern0 + p + 1] == text[text0 + t] {
                        t += 1
                        p += 2
                        continue
                    }
                } else if element == text[text0 + t] {
                    t += 1
                    p += 1
                    continue
                }
            }
            guard let s = starred else { return false }
            // Let the last `*` swallow one more character and retry.
            starred = (s.pattern, s.text + 1)
            p = s.pattern + 1
            t = s.text + 1
        }
        while p < pattern.count, pattern[pattern0 + p] == star { p += 1 }
        return p == pattern.count
    }

    // MARK: Functions

    /// The functions the parser accepts by name (`sum(…)`, `now()`) or builds from operators.
    static let functionNames: Set<String> = Set([
        "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
        "sum:", "count:", "min:", "max:", "average:", "abs:", "sqrt:", "floor:", "ceiling:", "trunc:",
        "uppercase:", "lowercase:", "canonical:", "now",
    ]).union(ExpressionBuiltins.names)

    private static func function(_ name: String, _ arguments: [Any?]) -> Any? {
        let numbers = arguments.map { ValueComparison.normalize($0) }
        func flattened() -> [Any?] {
            if arguments.count == 1, let items = arguments[0].flatMap(ValueComparison.collectionElements) { return items }
            return arguments
        }
        switch name {
        case "now": return Date()
        case "add:to:", "from:subtract:", "multiply:by:", "modulus:by:":
            guard numbers.count == 2, let a = numbers[0], let b = numbers[1] else { return nil }
            if let x = a as? Int64, let y = b as? Int64 {
                let (result, overflow): (Int64, Bool) =
                    switch name {
                    case "add:to:": x.addingReportingOverflow(y)
                    case "from:subtract:": x.subtractingReportingOverflow(y)
                    case "multiply:by:": x.multipliedReportingOverflow(by: y)
                    default: y == 0 ? (0, true) : x.remainderReportingOverflow(dividingBy: y)
                    }
                if !overflow { return NSNumber(value: result) }
            }
            guard let x = ValueComparison.doubleValue(a), let y = ValueComparison.doubleValue(b) else { return nil }
            switch name {
            case "add:to:": return NSNumber(value: x + y)
            case "from:subtract:": return NSNumber(value: x - y)
            case "multiply:by:": return NSNumber(value: x * y)
            default: return NSNumber(value: x.truncatingRemainder(dividingBy: y))
            }
        case "divide:by:", "raise:toPower:":
            guard numbers.count == 2, let x = numbers[0].flatMap(ValueComparison.doubleValue),
                let y = numbers[1].flatMap(ValueComparison.doubleValue)
            else { return nil }
            return NSNumber(value: name == "divide:by:" ? x / y : pow(x, y))
        case "sum:", "average:":
            let values = flattened().compactMap { ValueComparison.normalize($0).flatMap(ValueComparison.doubleValue) }
            let sum = values.reduce(0, +)
            return NSNumber(value: name == "sum:" ? sum : (values.isEmpty ? 0 : sum / Double(values.count)))
        case "count:": return NSNumber(value: flattened().count)
        case "min:", "max:":
            let values = flattened().compactMap { ValueComparison.normalize($0) }
            return values.min { a, b in
                let order = ValueComparison.compare(a, b) == .orderedAscending
                return name == "min:" ? order : !order
            }
        case "abs:", "sqrt:", "floor:", "ceiling:", "trunc:":
            guard let x = numbers.first.flatMap({ $0.flatMap(ValueComparison.doubleValue) }) else { return nil }
            switch name {
            case "abs:": return NSNumber(value: Swift.abs(x))
            case "sqrt:": return NSNumber(value: x.squareRoot())
            case "floor:": return NSNumber(value: x.rounded(.down))
            case "ceiling:": return NSNumber(value: x.rounded(.up))
            default: return NSNumber(value: x.rounded(.towardZero))
            }
        case "uppercase:", "lowercase:":
            guard let s = numbers.first.flatMap({ $0 as? String }) else { return nil }
            return name == "uppercase:" ? s.uppercased() : s.lowercased()
        case "canonical:":
            // Core Data's canonical form: case and diacritics folded, as `[cd]` compares.
            guard let s = numbers.first.flatMap({ $0 as? String }) else { return nil }
            return ValueComparison.fold(s, caseInsensitive: true, diacriticInsensitive: true)
        default:
            return ExpressionBuiltins.call(name, arguments)
        }
    }
}
