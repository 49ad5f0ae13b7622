import Foundation

/// What a SQL value holds, so that constants are bound in the column's own form.
package enum SQLValueKind {
    /// A column of an attribute.
    case attribute(NSAttributeDescription)
    /// A primary key or to-one foreign key: an object of the entity's hierarchy.
    case object(NSEntityDescription)
    /// A computed number: `COUNT`, `TOTAL`, `AVG`.
    case number

    package var valueClass: SQLValueClass {
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
package enum SQLValueClass: Equatable {
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
        let flags = SQLEvaluatorFunctions.flags(ci, di)
        let subject: SQLFragment = folds ? "\(raw: try evaluator().fold)(\(column), \(raw: flags))" : column
        let value = ValueComparison.normalize(constant)
        if valueClass == .opaque, value != nil {
            throw unsupported(predicate, "values of a transformable attribute compare only with nil in SQL")
        }
        /// The constant in the column's stored form, folded like the column; nil when the
        /// evaluator would never find the two equal or ordered.
        func stored(_ value: Any) throws -> SQLValue? {
            guard let converted = try storageValue(value, kind, predicate) else { return nil }
            if folds, case .text(let string) = converted { return .text(ValueComparison.fold(string, caseInsensitive: ci, diacriticInsensitive: di)) }
            return converted
        }
        /// The subject in the evaluator's order, for `<`, `BETWEEN` and ranges.
        let ordered = valueClass == .string && !folds ? dialect.inScalarOrder(subject) : subject
        // Where no NOT encloses the condition, NULL and 0 select the same rows: no guards needed.
        let plain = negationDepth == 0
        switch type {
        case .equalTo, .notEqualTo:
            guard let value else { return "\(column) IS\(raw: type == .notEqualTo ? " NOT" : "") NULL" }
            guard let bound = try stored(value) else { return type == .equalTo ? never : always }
            if plain, type == .equalTo { return "\(subject) = \(bind: bound)" }
            return "\(subject) \(raw: type == .equalTo ? dialect.words.identical : dialect.words.notIdentical) \(bind: bound)"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let value, valueClass != .object, let bound = try stored(value) else { return never }
            if plain { return "\(ordered) \(raw: PredicateFormatter.operatorName(type)) \(bind: bound)" }
            return "(\(ordered) \(raw: PredicateFormatter.operatorName(type)) \(bind: bound) AND \(column) IS NOT NULL)"
        case .between:
            guard valueClass != .object, let bounds = value.flatMap(ValueComparison.collectionElements), bounds.count == 2,
                let lowValue = ValueComparison.normalize(bounds[0]), let highValue = ValueComparison.normalize(bounds[1]),
                let low = try stored(lowValue), let high = try stored(highValue)
            else { return never }
            if plain { return "\(ordered) BETWEEN \(bind: low) AND \(bind: high)" }
            return "(\(ordered) BETWEEN \(bind: low) AND \(bind: high) AND \(column) IS NOT NULL)"
        case .in:
            if let string = value as? String {
                // `name IN "a text"`: the text contains the name.
                guard valueClass == .string else { return never }
                return "\(raw: try evaluator().string)(\(bind: .text(string)), \(column), \(raw: Int(NSComparisonPredicate.Operator.contains.rawValue)), \(raw: flags))"
            }
            guard let items = value.flatMap(ValueComparison.collectionElements) else { return never }
            var bound: [SQLFragment] = []
            for item in items {
                if let item = ValueComparison.normalize(item), let converted = try stored(item) { bound.append("\(bind: converted)") }
            }
            var parts: [SQLFragment] = []
            if !bound.isEmpty { parts.append("(\(subject) IN (\(SQLFragment.joined(bound, separator: ", "))) AND \(column) IS NOT NULL)") }
            if items.contains(where: { ValueComparison.normalize($0) == nil }) { parts.append("\(column) IS NULL") }
            return parts.isEmpty ? never : "(\(SQLFragment.joined(parts, separator: " OR ")))"
        case .beginsWith, .endsWith, .contains, .like:
            // The evaluator's own function decides where SQL cannot, so that folding, wildcards
            // and escapes agree to the character.
            guard valueClass == .string, let pattern = value as? String else { return never }
            // No string begins with, ends with or contains the empty string (the evaluator's rule).
            if pattern.isEmpty, type != .like { return never }
            let evaluated: SQLFragment? = dialect.evaluator.map {
                "\(raw: $0.string)(\(column), \(bind: .text(pattern)), \(raw: Int(type.rawValue)), \(raw: flags))"
            }
            if ci || di {
                // The evaluator's function compares ASCII text on its bytes: one call a row, where
                // choosing SQL's LIKE for ASCII values took a test and LIKE's own call.
                guard let evaluated else { throw SQLNeedsEvaluator() }
                return evaluated
            }
            // Without folding, the evaluator compares Unicode scalars, and the dialect orders
            // strings as their scalars: a prefix's strings are one range of the column (which an
            // index can serve).
            let prefix: String? =
                switch type {
                case .beginsWith: pattern
                // `text*`, with no other wildcard or escape: the strings beginning with the text.
                case .like: SQLLikePattern.literalPrefix(pattern).flatMap { $0 + "*" == pattern ? $0 : nil }
                default: nil
                }
            if let prefix, let upper = Self.prefixUpperBound(prefix) {
                let ranged = dialect.inScalarOrder(column)
                return guarded("(\(ranged) >= \(bind: .text(prefix)) AND \(ranged) < \(bind: .text(upper)))", column, plain)
            }
            if let test = dialect.scalarTest(type, column, pattern, evaluated: evaluated) { return guarded(test, column, plain) }
            guard let evaluated else { throw SQLNeedsEvaluator() }
            return evaluated
        case .matches:
            guard valueClass == .string, let pattern = value as? String else { return never }
            let functions = try evaluator()
            let evaluated: SQLFragment = "\(raw: functions.matches)(\(column), \(bind: .text(pattern)), \(raw: flags))"
            // A regular expression that begins with literal text matches only strings in that
            // text's range: the range (an index's) narrows the rows the expression runs on.
            guard !ci, !di, let prefix = SQLLikePattern.regexLiteralPrefix(pattern), let upper = Self.prefixUpperBound(prefix) else { return evaluated }
            let ranged = dialect.inScalarOrder(column)
            if pattern == prefix + ".*" {
                // `text.*`: every string of the range matches, but those holding a character `.`
                // does not match or `$` treats specially (ICU's line terminators) or one that
                // stops the string on its way to the expression (NUL): those the expression decides.
                let tail: SQLFragment = "(CASE WHEN \(raw: functions.isSingleLine)(\(column)) THEN \(always) ELSE \(evaluated) END)"
                return guarded("(\(ranged) >= \(bind: .text(prefix)) AND \(ranged) < \(bind: .text(upper)) AND \(tail))", column, plain)
            }
            return guarded("(\(ranged) >= \(bind: .text(prefix)) AND \(ranged) < \(bind: .text(upper)) AND \(evaluated))", column, plain)
        case .customSelector:
            throw unsupported(predicate, "custom selectors are not supported")
        }
    }

    /// The dialect's evaluator functions.
    ///
    /// - Throws: `SQLNeedsEvaluator` when it has none.
    func evaluator() throws -> SQLEvaluatorFunctions {
        guard let functions = dialect.evaluator else { throw SQLNeedsEvaluator() }
        return functions
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
    mutating func compareValues(
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
        let foldName = folds ? try evaluator().fold : ""
        func fold(_ value: SQLFragment) -> SQLFragment {
            folds ? "\(raw: foldName)(\(value), \(raw: SQLEvaluatorFunctions.flags(ci, di)))" : value
        }
        switch type {
        case .equalTo, .notEqualTo:
            let negation = type == .notEqualTo ? "NOT " : ""
            // Values that never compare are still equal when both are nil.
            guard comparable else { return "\(raw: negation)(\(a) IS NULL AND \(b) IS NULL)" }
            return "\(raw: negation)(\(fold(a)) \(raw: dialect.words.identical) \(fold(b)))"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard comparable, classA != .object else { return never }
            let left = classA == .string && !folds ? dialect.inScalarOrder(a) : fold(a)
            return "(\(left) \(raw: PredicateFormatter.operatorName(type)) \(fold(b)) AND \(a) IS NOT NULL AND \(b) IS NOT NULL)"
        default:
            throw unsupported(predicate, "\(PredicateFormatter.operatorName(type)) between two key paths is not compiled to SQL")
        }
    }

    /// A constant in the form its column stores (docs/sqlite-format.md): dates as seconds since 2001,
    /// booleans 0/1, UUIDs as 16 bytes, URLs as text, objects and object IDs as their primary key.
    /// Nil when the constant is of another class than the column, so that it can never match.
    private func storageValue(_ value: Any, _ kind: SQLValueKind, _ predicate: NSComparisonPredicate) throws -> SQLValue? {
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
            guard id.entity.layout?.root === target.layout?.root, id.persistentStore === store else { return .integer(0) }
            return .integer(id.primaryKey)
        }
        guard valueClass == kind.valueClass else { return nil }
        switch value {
        case let x as Int64: return .integer(x)
        case let x as Double: return .real(x)
        case let x as Decimal: return .decimal(x)
        case let x as String: return .text(x)
        case let x as Date: return .real(x.timeIntervalSinceReferenceDate)
        case let x as UUID: return .uuid(x)
        case let x as Data: return .blob(x)
        case let x as URL: return .text(x.absoluteString)
        default: return nil
        }
    }
}
