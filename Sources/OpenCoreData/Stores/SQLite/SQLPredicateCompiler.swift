import GRDB

/// Compiles a predicate to a SQL condition with every value bound as a parameter.
///
/// Every condition it emits is 0 or 1, never NULL, so that `NOT` and `OR` select exactly the rows
/// the in-memory evaluator selects (`name != "x"` keeps rows whose name is NULL, as in memory).
/// String operators fold with the SQL functions of `SQLPredicateFunctions`, which call the
/// evaluator's own folding. A predicate the store cannot express in SQL is refused with Core
/// Data's `NSPersistentStoreUnsupportedRequestTypeError`, never evaluated in memory over the table.
struct SQLPredicateCompiler {
    let entity: NSEntityDescription
    let table: String
    let store: SQLiteStore
    var joins: SQLJoins
    private(set) var arguments = StatementArguments()

    init(entity: NSEntityDescription, table: String, store: SQLiteStore, joins: SQLJoins) {
        self.entity = entity
        self.table = table
        self.store = store
        self.joins = joins
    }

    mutating func compile(_ predicate: Foundation.NSPredicate) throws -> String {
        // Compound first: Linux's Foundation makes every compound predicate equal FALSEPREDICATE.
        if let compound = predicate as? NSCompoundPredicate {
            let parts = try compound.subpredicates.map { try compile($0) }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? "1" : parts.map { "(\($0))" }.joined(separator: " AND ")
            case .or: return parts.isEmpty ? "0" : parts.map { "(\($0))" }.joined(separator: " OR ")
            case .not: return "NOT (\(parts.first ?? "1"))"
            @unknown default: break
            }
        }
        if let comparison = predicate as? NSComparisonPredicate { return try compile(comparison) }
        switch PredicateKind(predicate) {
        case .truePredicate: return "1"
        case .falsePredicate: return "0"
        case .block, .other: throw unsupported(predicate, "block predicates run only in memory")
        }
    }

    private func unsupported(_ predicate: Foundation.NSPredicate, _ reason: String) -> NSError {
        CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "The SQLite store can't run the predicate \(PredicateFormatter.format(predicate)) on entity \(entity.name ?? "?"): \(reason).",
            userInfo: ["predicate": predicate, "entity": entity.name ?? ""])
    }

    // MARK: Comparisons

    /// One side of a comparison: a column (with the property it stores; nil for `SELF`, the
    /// primary key) or a constant.
    private enum Operand {
        case column(String, NSPropertyDescription?)
        case constant(Any?)
    }

    private mutating func compile(_ predicate: NSComparisonPredicate) throws -> String {
        guard predicate.comparisonPredicateModifier == .direct else {
            throw unsupported(predicate, "ANY and ALL apply to to-many key paths, which are not compiled to SQL yet")
        }
        var left = try operand(predicate.leftExpression, of: predicate)
        var right = try operand(predicate.rightExpression, of: predicate)
        var type = predicate.predicateOperatorType
        if case .constant = left, case .column = right {
            // `3 < count` is `count > 3`; `"abc" CONTAINS name` is `name IN "abc"`.
            let mirrored: [NSComparisonPredicate.Operator: NSComparisonPredicate.Operator] = [
                .equalTo: .equalTo, .notEqualTo: .notEqualTo, .lessThan: .greaterThan, .lessThanOrEqualTo: .greaterThanOrEqualTo,
                .greaterThan: .lessThan, .greaterThanOrEqualTo: .lessThanOrEqualTo, .in: .contains, .contains: .in,
            ]
            guard let flipped = mirrored[type] else { throw unsupported(predicate, "the key path must be on the left") }
            type = flipped
            swap(&left, &right)
        }
        switch (left, right) {
        case (.constant(let a), .constant(let b)):
            return PredicateEvaluator.compare(a, b, type, predicate.options) ? "1" : "0"
        case (.column(let column, let property), .constant(let value)):
            return try compare(column, property, type, value, predicate)
        case (.column(let a, _), .column(let b, _)):
            return try compareColumns(a, b, type, predicate)
        case (.constant, .column):
            throw unsupported(predicate, "unreachable")
        }
    }

    private mutating func operand(_ expression: NSExpression, of predicate: NSComparisonPredicate) throws -> Operand {
        switch expression.storage {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .column("\(table).Z_PK", nil)
        case .keyPath(let path):
            let property = try checkedProperty(atKeyPath: path, of: predicate)
            return .column(try joins.column(forKeyPath: path, from: entity), property)
        case .aggregate(let items):
            return .constant(try items.map { item -> Any? in
                guard case .constant(let value) = item.storage else {
                    throw unsupported(predicate, "only constants are compiled inside { }")
                }
                return value
            })
        case .variable(let name):
            throw unsupported(predicate, "the variable $\(name) was not substituted")
        default:
            throw unsupported(predicate, "\(expression.expressionType) expressions are not compiled to SQL yet")
        }
    }

    /// The property a key path ends on, refusing to-many relationships and collection operators
    /// (the store would need subqueries); unknown keys are left to `SQLJoins`, which names them.
    private func checkedProperty(atKeyPath path: String, of predicate: NSComparisonPredicate) throws -> NSPropertyDescription? {
        var current: NSEntityDescription? = entity
        var last: NSPropertyDescription?
        for part in path.split(separator: ".").map(String.init) {
            if part.hasPrefix("@") { throw unsupported(predicate, "collection operators such as \(part) are not compiled to SQL yet") }
            guard let property = current?.propertiesByName[part] else { return nil }
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                throw unsupported(predicate, "the key path \(path) goes through the to-many relationship \(part)")
            }
            last = property
            current = (property as? NSRelationshipDescription)?.destinationEntity
        }
        return last
    }

    private var stringTypes: Set<NSAttributeType> { [.stringAttributeType, .URIAttributeType] }

    private mutating func compare(
        _ column: String, _ property: NSPropertyDescription?, _ type: NSComparisonPredicate.Operator, _ value: Any?,
        _ predicate: NSComparisonPredicate
    ) throws -> String {
        let attribute = property as? NSAttributeDescription
        let isString = attribute.map { stringTypes.contains($0.attributeType) } ?? false
        let ci = predicate.options.contains(.caseInsensitive)
        let di = predicate.options.contains(.diacriticInsensitive)
        let folds = isString && (ci || di)
        let subject = folds ? "\(SQLPredicateFunctions.foldName)(\(column), \(SQLPredicateFunctions.flags(ci, di)))" : column
        let notNull = "\(column) IS NOT NULL"
        func bind(_ value: Any) throws -> String {
            var converted = try storageValue(value, for: property, predicate)
            if folds, let string = converted as? String {
                converted = ValueComparison.fold(string, caseInsensitive: ci, diacriticInsensitive: di)
            }
            arguments += [converted]
            return "?"
        }
        let value = ValueComparison.normalize(value)
        switch type {
        case .equalTo, .notEqualTo:
            let negation = type == .notEqualTo ? " NOT" : ""
            guard let value else { return "\(column) IS\(negation) NULL" }
            return "\(subject) IS\(negation) \(try bind(value))"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let value else { return "0" }
            return "(\(subject) \(PredicateFormatter.operatorName(type)) \(try bind(value)) AND \(notNull))"
        case .between:
            guard let bounds = value.flatMap(ValueComparison.collectionElements), bounds.count == 2,
                let low = ValueComparison.normalize(bounds[0]), let high = ValueComparison.normalize(bounds[1])
            else { return "0" }
            return "(\(subject) BETWEEN \(try bind(low)) AND \(try bind(high)) AND \(notNull))"
        case .in:
            if let string = value as? String {
                guard isString else { return "0" }
                return "(instr(\(try bind(string)), \(subject)) > 0 AND \(notNull))"
            }
            guard let items = value.flatMap(ValueComparison.collectionElements) else { return "0" }
            let present = items.compactMap { ValueComparison.normalize($0) }
            var parts: [String] = []
            if !present.isEmpty { parts.append("(\(subject) IN (\(try present.map(bind).joined(separator: ", "))) AND \(notNull))") }
            if present.count < items.count { parts.append("\(column) IS NULL") }
            return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"
        case .beginsWith, .endsWith, .contains, .like:
            guard isString, let pattern = value as? String else { return "0" }
            let folded = folds ? ValueComparison.fold(pattern, caseInsensitive: ci, diacriticInsensitive: di) : pattern
            let glob: String
            switch type {
            case .beginsWith: glob = Self.globEscape(folded) + "*"
            case .endsWith: glob = "*" + Self.globEscape(folded)
            case .contains: glob = "*" + Self.globEscape(folded) + "*"
            default: glob = Self.glob(fromLike: folded)
            }
            // GLOB is case-sensitive and compares code points, as the in-memory evaluator does
            // after folding; LIKE would fold ASCII case on its own.
            arguments += [glob]
            return "(\(subject) GLOB ? AND \(notNull))"
        case .matches:
            guard isString, let pattern = value as? String else { return "0" }
            arguments += [pattern]
            return "\(SQLPredicateFunctions.matchesName)(\(column), ?, \(SQLPredicateFunctions.flags(ci, di)))"
        case .customSelector:
            throw unsupported(predicate, "custom selectors are not supported")
        }
    }

    private func compareColumns(_ a: String, _ b: String, _ type: NSComparisonPredicate.Operator, _ predicate: NSComparisonPredicate) throws -> String {
        guard predicate.options.subtracting(.normalized).isEmpty else {
            throw unsupported(predicate, "string options between two key paths are not compiled to SQL yet")
        }
        switch type {
        case .equalTo: return "\(a) IS \(b)"
        case .notEqualTo: return "\(a) IS NOT \(b)"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return "(\(a) \(PredicateFormatter.operatorName(type)) \(b) AND \(a) IS NOT NULL AND \(b) IS NOT NULL)"
        default:
            throw unsupported(predicate, "\(PredicateFormatter.operatorName(type)) between two key paths is not compiled to SQL yet")
        }
    }

    /// A constant in the form its column stores (format notes): dates as seconds since 2001,
    /// booleans 0/1, UUIDs as 16 bytes, objects and object IDs on a to-one key path (or `SELF`)
    /// as their primary key.
    private func storageValue(_ value: Any, for property: NSPropertyDescription?, _ predicate: NSComparisonPredicate) throws -> (any DatabaseValueConvertible)? {
        if property == nil || property is NSRelationshipDescription {
            let target = (property as? NSRelationshipDescription)?.destinationEntity ?? entity
            let id: NSManagedObjectID
            switch value {
            case let object as NSManagedObject: id = object.objectID
            case let objectID as NSManagedObjectID: id = objectID
            default: throw unsupported(predicate, "a relationship or SELF compares with managed objects or object IDs, not \(type(of: value))")
            }
            // Primary keys are unique only within a hierarchy; an object of another hierarchy, or
            // one never saved (key 0), matches no row, as in memory.
            guard id.entity.layout?.root === target.layout?.root else { return Int64(0) }
            return id.primaryKey
        }
        switch value {
        case let x as Int64: return x
        case let x as Double: return x
        case let x as Decimal: return NSDecimalNumber(decimal: x).doubleValue
        case let x as String: return x
        case let x as Date: return x.timeIntervalSinceReferenceDate
        case let x as UUID: return withUnsafeBytes(of: x.uuid) { Data($0) }
        case let x as Data: return x
        case let x as URL: return x.absoluteString
        default: throw unsupported(predicate, "a \(type(of: value)) has no column form")
        }
    }

    /// Makes `*`, `?` and `[` match themselves in a GLOB pattern.
    static func globEscape(_ string: String) -> String {
        var result = ""
        for character in string.unicodeScalars {
            switch character {
            case "*": result += "[*]"
            case "?": result += "[?]"
            case "[": result += "[[]"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// A LIKE pattern (`*`, `?`, `\` escapes) as a GLOB pattern.
    static func glob(fromLike pattern: String) -> String {
        var result = ""
        var escaped = false
        for character in pattern.unicodeScalars {
            if escaped {
                result += globEscape(String(character))
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "*" || character == "?" {
                result.unicodeScalars.append(character)
            } else {
                result += globEscape(String(character))
            }
        }
        if escaped { result += "\\" }
        return result
    }
}

/// The SQL functions predicates compile to, registered on every connection of the store so that
/// SQL folds and matches exactly as the in-memory evaluator does.
enum SQLPredicateFunctions {
    static let foldName = "OCD_FOLD"
    static let matchesName = "OCD_MATCHES"

    /// 1 for case-insensitive, 2 for diacritic-insensitive, as the functions read them.
    static func flags(_ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> Int {
        (caseInsensitive ? 1 : 0) | (diacriticInsensitive ? 2 : 0)
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
