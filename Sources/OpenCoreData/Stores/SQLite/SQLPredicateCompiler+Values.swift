import GRDB

/// What a SQL value holds, so that constants are bound in the column's own form.
enum SQLValueKind {
    /// A column of an attribute.
    case attribute(NSAttributeDescription)
    /// A primary key or to-one foreign key: an object of the entity's hierarchy.
    case object(NSEntityDescription)
    /// A computed number: `COUNT`, `TOTAL`, `AVG`.
    case number

    var valueClass: SQLValueClass {
        switch self {
        case .object: return .object
        case .number: return .number
        case .attribute(let attribute):
            switch attribute.attributeType {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
                .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
                return .number
            case .stringAttributeType: return .string
            case .dateAttributeType: return .date
            case .binaryDataAttributeType: return .data
            case .UUIDAttributeType: return .uuid
            case .URIAttributeType: return .url
            default: return .opaque
            }
        }
    }
}

/// The kinds of value the in-memory evaluator compares with one another: two values of different
/// classes are never equal and never ordered, so SQL must not compare them either (SQLite would
/// happily find the text "5" equal to the number 5).
enum SQLValueClass: Equatable {
    case number, string, date, data, uuid, url, object, opaque

    init(constant normalized: Any) {
        switch normalized {
        case is Int64, is Double, is Decimal: self = .number
        case is String: self = .string
        case is Date: self = .date
        case is Data: self = .data
        case is UUID: self = .uuid
        case is URL: self = .url
        case is NSManagedObject, is NSManagedObjectID: self = .object
        default: self = .opaque
        }
    }
}

extension SQLPredicateCompiler {
    /// `column <type> value` with a constant `value`, exactly as the in-memory evaluator decides it.
    mutating func compare(
        _ column: SQLFragment, _ kind: SQLValueKind, _ type: NSComparisonPredicate.Operator, _ constant: Any?,
        _ options: NSComparisonPredicate.Options, _ predicate: NSComparisonPredicate
    ) throws -> SQLFragment {
        let valueClass = kind.valueClass
        let ci = options.contains(.caseInsensitive)
        let di = options.contains(.diacriticInsensitive)
        let folds = valueClass == .string && (ci || di)
        let subject: SQLFragment = folds ? "\(raw: SQLPredicateFunctions.foldName)(\(column), \(raw: SQLPredicateFunctions.flags(ci, di)))" : column
        let value = ValueComparison.normalize(constant)
        if valueClass == .opaque, value != nil {
            throw unsupported(predicate, "values of a transformable attribute compare only with nil in SQL")
        }
        /// The constant in the column's stored form, folded like the column; nil when the
        /// evaluator would never find the two equal or ordered.
        func stored(_ value: Any) throws -> (any DatabaseValueConvertible)? {
            guard let converted = try storageValue(value, kind, predicate) else { return nil }
            if folds, let string = converted as? String { return ValueComparison.fold(string, caseInsensitive: ci, diacriticInsensitive: di) }
            return converted
        }
        // Where no NOT encloses the condition, NULL and 0 select the same rows: no guards needed.
        let plain = negationDepth == 0
        switch type {
        case .equalTo, .notEqualTo:
            let negation = type == .notEqualTo ? " NOT" : ""
            guard let value else { return "\(column) IS\(raw: negation) NULL" }
            guard let bound = try stored(value) else { return type == .equalTo ? "0" : "1" }
            if plain, type == .equalTo { return "\(subject) = \(bind: bound)" }
            return "\(subject) IS\(raw: negation) \(bind: bound)"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let value, valueClass != .object, let bound = try stored(value) else { return "0" }
            if plain { return "\(subject) \(raw: PredicateFormatter.operatorName(type)) \(bind: bound)" }
            return "(\(subject) \(raw: PredicateFormatter.operatorName(type)) \(bind: bound) AND \(column) IS NOT NULL)"
        case .between:
            guard valueClass != .object, let bounds = value.flatMap(ValueComparison.collectionElements), bounds.count == 2,
                let lowValue = ValueComparison.normalize(bounds[0]), let highValue = ValueComparison.normalize(bounds[1]),
                let low = try stored(lowValue), let high = try stored(highValue)
            else { return "0" }
            if plain { return "\(subject) BETWEEN \(bind: low) AND \(bind: high)" }
            return "(\(subject) BETWEEN \(bind: low) AND \(bind: high) AND \(column) IS NOT NULL)"
        case .in:
            if let string = value as? String {
                // `name IN "a text"`: the text contains the name.
                guard valueClass == .string else { return "0" }
                return "\(raw: SQLPredicateFunctions.stringName)(\(bind: string), \(column), \(raw: Int(NSComparisonPredicate.Operator.contains.rawValue)), \(raw: SQLPredicateFunctions.flags(ci, di)))"
            }
            guard let items = value.flatMap(ValueComparison.collectionElements) else { return "0" }
            var bound: [SQLFragment] = []
            for item in items {
                if let item = ValueComparison.normalize(item), let converted = try stored(item) { bound.append("\(bind: converted)") }
            }
            var parts: [SQLFragment] = []
            if !bound.isEmpty { parts.append("(\(subject) IN (\(SQLFragment.joined(bound, separator: ", "))) AND \(column) IS NOT NULL)") }
            if items.contains(where: { ValueComparison.normalize($0) == nil }) { parts.append("\(column) IS NULL") }
            return parts.isEmpty ? "0" : "(\(SQLFragment.joined(parts, separator: " OR ")))"
        case .beginsWith, .endsWith, .contains, .like:
            // The evaluator's own function decides, so that folding, wildcards and escapes agree
            // to the character (GLOB would also stop at a NUL character).
            guard valueClass == .string, let pattern = value as? String else { return "0" }
            let evaluated: SQLFragment = "\(raw: SQLPredicateFunctions.stringName)(\(column), \(bind: pattern), \(raw: Int(type.rawValue)), \(raw: SQLPredicateFunctions.flags(ci, di)))"
            if ci || di {
                // Folding an ASCII string changes only its case, and folds it to ASCII: for an
                // ASCII pattern, an ASCII value is compared by SQLite's own LIKE (ASCII-only case
                // folding) or GLOB; any other value by the evaluator.
                guard let native = SQLLikePattern.asciiCondition(type, pattern, caseInsensitive: ci) else { return evaluated }
                let test: SQLFragment = ci ? "\(column) LIKE \(bind: native) ESCAPE '\\'" : "\(column) GLOB \(bind: native)"
                return guarded("(CASE WHEN \(raw: SQLPredicateFunctions.isASCIIName)(\(column)) THEN \(test) ELSE \(evaluated) END)", column, plain)
            }
            // Without folding, the evaluator compares Unicode scalars, and UTF-8 orders strings as
            // their scalars do: a prefix's strings are one range of the column (which an index
            // can serve), and a LIKE pattern is a GLOB pattern, with no call into Swift per row.
            let prefix: String? =
                switch type {
                case .beginsWith: pattern
                // `text*`, with no other wildcard or escape: the strings beginning with the text.
                case .like: SQLLikePattern.literalPrefix(pattern).flatMap { $0 + "*" == pattern ? $0 : nil }
                default: nil
                }
            if let prefix, let upper = Self.prefixUpperBound(prefix) {
                return guarded("(\(column) >= \(bind: prefix) AND \(column) < \(bind: upper))", column, plain)
            }
            guard type == .like, let glob = SQLLikePattern.glob(pattern) else { return evaluated }
            // GLOB stops at a NUL character; a value holding one is left to the evaluator.
            return guarded("(CASE WHEN instr(\(column), char(0)) > 0 THEN \(evaluated) ELSE \(column) GLOB \(bind: glob) END)", column, plain)
        case .matches:
            guard valueClass == .string, let pattern = value as? String else { return "0" }
            let evaluated: SQLFragment = "\(raw: SQLPredicateFunctions.matchesName)(\(column), \(bind: pattern), \(raw: SQLPredicateFunctions.flags(ci, di)))"
            // A regular expression that begins with literal text matches only strings in that
            // text's range: the range (an index's) narrows the rows the expression runs on.
            guard !ci, !di, let prefix = SQLLikePattern.regexLiteralPrefix(pattern), let upper = Self.prefixUpperBound(prefix) else { return evaluated }
            if pattern == prefix + ".*" {
                // `text.*`: every string of the range matches, but those holding a character `.`
                // does not match or `$` treats specially (ICU's line terminators) or one that
                // stops the string on its way to the expression (NUL): those the expression decides.
                let tail: SQLFragment = "(CASE WHEN \(raw: SQLPredicateFunctions.isSingleLineName)(\(column)) THEN 1 ELSE \(evaluated) END)"
                return guarded("(\(column) >= \(bind: prefix) AND \(column) < \(bind: upper) AND \(tail))", column, plain)
            }
            return guarded("(\(column) >= \(bind: prefix) AND \(column) < \(bind: upper) AND \(evaluated))", column, plain)
        case .customSelector:
            throw unsupported(predicate, "custom selectors are not supported")
        }
    }

    /// `condition` as the evaluator answers it for a nil value too: under a NOT, a NULL column
    /// must make it false rather than NULL.
    private func guarded(_ condition: SQLFragment, _ column: SQLFragment, _ plain: Bool) -> SQLFragment {
        plain ? condition : "(\(column) IS NOT NULL AND \(condition))"
    }

    /// The least string greater than every string that begins with `prefix`: the prefix with its
    /// last scalar replaced by the next one; nil when there is none to take.
    static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        guard let last = scalars.popLast() else { return nil }
        // The next scalar value, stepping over the surrogate range no string contains.
        let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
        guard let successor = Unicode.Scalar(next) else { return nil }
        scalars.append(successor)
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    /// `a <type> b` between two SQL values (columns, subqueries).
    func compareValues(
        _ a: SQLFragment, _ kindA: SQLValueKind, _ b: SQLFragment, _ kindB: SQLValueKind, _ type: NSComparisonPredicate.Operator,
        _ options: NSComparisonPredicate.Options, _ predicate: NSComparisonPredicate
    ) throws -> SQLFragment {
        let classA = kindA.valueClass
        guard classA != .opaque, kindB.valueClass != .opaque else {
            throw unsupported(predicate, "values of a transformable attribute compare only with nil in SQL")
        }
        var comparable = classA == kindB.valueClass
        if case .object(let x) = kindA, case .object(let y) = kindB, x.layout?.root !== y.layout?.root { comparable = false }
        let ci = options.contains(.caseInsensitive)
        let di = options.contains(.diacriticInsensitive)
        let folds = classA == .string && (ci || di)
        func fold(_ value: SQLFragment) -> SQLFragment {
            folds ? "\(raw: SQLPredicateFunctions.foldName)(\(value), \(raw: SQLPredicateFunctions.flags(ci, di)))" : value
        }
        switch type {
        case .equalTo, .notEqualTo:
            let negation = type == .notEqualTo ? "NOT " : ""
            // Values that never compare are still equal when both are nil.
            guard comparable else { return "\(raw: negation)(\(a) IS NULL AND \(b) IS NULL)" }
            return "\(raw: negation)(\(fold(a)) IS \(fold(b)))"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard comparable, classA != .object else { return "0" }
            return "(\(fold(a)) \(raw: PredicateFormatter.operatorName(type)) \(fold(b)) AND \(a) IS NOT NULL AND \(b) IS NOT NULL)"
        default:
            throw unsupported(predicate, "\(PredicateFormatter.operatorName(type)) between two key paths is not compiled to SQL")
        }
    }

    /// A constant in the form its column stores (docs/sqlite-format.md): dates as seconds since 2001,
    /// booleans 0/1, UUIDs as 16 bytes, URLs as text, objects and object IDs as their primary key.
    /// Nil when the constant is of another class than the column, so that it can never match.
    private func storageValue(_ value: Any, _ kind: SQLValueKind, _ predicate: NSComparisonPredicate) throws -> (any DatabaseValueConvertible)? {
        let valueClass = SQLValueClass(constant: value)
        if case .object(let target) = kind {
            let id: NSManagedObjectID
            switch value {
            case let object as NSManagedObject: id = object.objectID
            case let objectID as NSManagedObjectID: id = objectID
            default: throw unsupported(predicate, "a relationship or SELF compares with managed objects or object IDs, not \(type(of: value))")
            }
            // Primary keys are unique only within a hierarchy of one store; an object of another
            // hierarchy or store, or one never saved (key 0), matches no row, as in memory.
            guard id.entity.layout?.root === target.layout?.root, id.persistentStore === store else { return Int64(0) }
            return id.primaryKey
        }
        guard valueClass == kind.valueClass else { return nil }
        switch value {
        case let x as Int64: return x
        case let x as Double: return x
        case let x as Decimal: return NSDecimalNumber(decimal: x).doubleValue
        case let x as String: return x
        case let x as Date: return x.timeIntervalSinceReferenceDate
        case let x as UUID: return withUnsafeBytes(of: x.uuid) { Data($0) }
        case let x as Data: return x
        case let x as URL: return x.absoluteString
        default: return nil
        }
    }
}
