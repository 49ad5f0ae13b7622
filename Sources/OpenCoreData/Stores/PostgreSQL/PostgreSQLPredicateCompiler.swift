import Foundation

/// Compiles a predicate to a PostgreSQL condition, every value bound as a parameter (`$n`) and
/// every key path checked against the model, for the forms SQL answers exactly as the in-memory
/// evaluator does: comparisons of attributes (through to-one relationships) with constants or
/// with each other, `IN`, `BETWEEN`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `LIKE` (case-
/// insensitive for ASCII patterns), objects by identity, and `AND`/`OR`/`NOT`.
///
/// Anything else (`MATCHES`, diacritic folding, to-many key paths, `SUBQUERY`, functions) throws
/// `NotCompiled`, and the store evaluates the whole predicate in memory over the entity's rows:
/// the same answer, at the cost of reading the table (docs/compatibility.md).
struct PostgreSQLPredicateCompiler {
    struct NotCompiled: Error {}

    let entity: NSEntityDescription
    let alias: String
    /// Parameters bound so far, `$1` first.
    var binds: [PostgreSQLValue] = []
    /// The LEFT JOINs to-one key paths need, by relationship path.
    private(set) var joins: [(path: String, sql: String)] = []
    private var negationDepth = 0

    /// - Parameter binds: Parameters the statement binds before the condition (`$1`… of a batch
    ///   update's new values): the condition's own come after them.
    init(entity: NSEntityDescription, alias: String, binds: [PostgreSQLValue] = []) {
        self.entity = entity
        self.alias = alias
        self.binds = binds
    }

    var joinClause: String { joins.map(\.sql).joined(separator: " ") }

    mutating func compile(_ predicate: Foundation.NSPredicate) throws -> String {
        if let compound = predicate as? NSCompoundPredicate {
            let negates = compound.compoundPredicateType == .not
            if negates { negationDepth += 1 }
            defer { if negates { negationDepth -= 1 } }
            let parts = try compound.subpredicates.map { "(\(try compile($0)))" }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? "TRUE" : parts.joined(separator: " AND ")
            case .or: return parts.isEmpty ? "FALSE" : parts.joined(separator: " OR ")
            case .not: return "NOT \(parts.first ?? "TRUE")"
            @unknown default: throw NotCompiled()
            }
        }
        if let comparison = predicate as? NSComparisonPredicate { return try compile(comparison) }
        switch PredicateKind(predicate) {
        case .truePredicate: return "TRUE"
        case .falsePredicate: return "FALSE"
        case .block, .other: throw NotCompiled()
        }
    }

    // MARK: Comparisons

    private enum Operand {
        case constant(Any?)
        /// A column and the attribute it holds; nil for an object key (`Z_PK` or a foreign key).
        case column(String, NSAttributeDescription?)
    }

    private mutating func compile(_ predicate: NSComparisonPredicate) throws -> String {
        guard predicate.comparisonPredicateModifier == .direct, !predicate.options.contains(.diacriticInsensitive) else { throw NotCompiled() }
        let left = try operand(predicate.leftExpression)
        let right = try operand(predicate.rightExpression)
        let condition: String
        switch (left, right) {
        case (.column(let column, let attribute), .constant(let value)):
            condition = try compare(column, attribute, predicate.predicateOperatorType, value, predicate.options)
        case (.column(let a, let attributeA), .column(let b, let attributeB)):
            guard let symbol = Self.symbols[predicate.predicateOperatorType], predicate.options.isEmpty,
                Self.comparable(attributeA, attributeB)
            else { throw NotCompiled() }
            condition = symbol == "<>" ? "\(a) IS DISTINCT FROM \(b)" : "\(a) \(symbol) \(b)"
        default:
            throw NotCompiled()
        }
        // Under NOT, a NULL must count as false, as the evaluator's comparison with nil does.
        return negationDepth > 0 ? "COALESCE(\(condition), FALSE)" : condition
    }

    private static let symbols: [NSComparisonPredicate.Operator: String] = [
        .equalTo: "=", .notEqualTo: "<>", .lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">=",
    ]

    /// Whether two columns hold values SQL compares as the evaluator does: both numbers (or dates),
    /// or both strings, or both object keys.
    private static func comparable(_ a: NSAttributeDescription?, _ b: NSAttributeDescription?) -> Bool {
        switch (a.map(valueClass), b.map(valueClass)) {
        case (nil, nil): true
        case (let x?, let y?): x == y && x != "other"
        default: false
        }
    }

    private static func valueClass(_ attribute: NSAttributeDescription) -> String {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
            .doubleAttributeType, .floatAttributeType: "number"
        case .dateAttributeType: "date"
        case .stringAttributeType: "string"
        default: "other"
        }
    }

    private mutating func compare(
        _ column: String, _ attribute: NSAttributeDescription?, _ type: NSComparisonPredicate.Operator, _ value: Any?,
        _ options: NSComparisonPredicate.Options
    ) throws -> String {
        let caseless = options.contains(.caseInsensitive)
        let isString = attribute?.attributeType == .stringAttributeType
        if caseless, !isString { throw NotCompiled() }
        switch type {
        case .equalTo, .notEqualTo:
            let equal = type == .equalTo
            guard let value = Self.unwrapped(value) else { return equal ? "\(column) IS NULL" : "\(column) IS NOT NULL" }
            let parameter = try bind(value, for: attribute)
            if caseless {
                guard let text = value as? String, Self.isASCII(text) else { throw NotCompiled() }
                return equal ? "lower(\(column)) = lower(\(parameter))" : "lower(\(column)) IS DISTINCT FROM lower(\(parameter))"
            }
            return equal ? "\(column) = \(parameter)" : "\(column) IS DISTINCT FROM \(parameter)"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard !caseless, let value = Self.unwrapped(value) else { throw NotCompiled() }
            let parameter = try bind(value, for: attribute)
            return "\(column)\(isString ? " COLLATE \"C\"" : "") \(Self.symbols[type]!) \(parameter)"
        case .in:
            guard !caseless, let values = Self.elements(value) else { throw NotCompiled() }
            if values.isEmpty { return "FALSE" }
            let parameters = try values.map { value -> String in
                guard let value = Self.unwrapped(value) else { throw NotCompiled() }
                return try bind(value, for: attribute)
            }
            return "\(column) IN (\(parameters.joined(separator: ", ")))"
        case .between:
            guard !caseless, let bounds = Self.elements(value), bounds.count == 2,
                let low = Self.unwrapped(bounds[0]), let high = Self.unwrapped(bounds[1])
            else { throw NotCompiled() }
            return "\(column) BETWEEN \(try bind(low, for: attribute)) AND \(try bind(high, for: attribute))"
        case .beginsWith, .endsWith, .contains, .like:
            guard isString, let text = Self.unwrapped(value) as? String, !caseless || Self.isASCII(text) else { throw NotCompiled() }
            let pattern: String
            switch type {
            case .beginsWith: pattern = Self.escaped(text) + "%"
            case .endsWith: pattern = "%" + Self.escaped(text)
            case .contains: pattern = "%" + Self.escaped(text) + "%"
            default: pattern = Self.likePattern(text)
            }
            // Foundation's NSString answers false for an empty prefix, suffix or part.
            if text.isEmpty, type != .like { return "FALSE" }
            binds.append(.text(caseless ? pattern.lowercased() : pattern))
            let target = caseless ? "lower(\(column))" : column
            return "\(target) LIKE $\(binds.count) COLLATE \"C\""
        default:
            throw NotCompiled()
        }
    }

    // MARK: Values

    /// Binds `value` as `attribute`'s column holds it, or as an object's key.
    private mutating func bind(_ value: Any, for attribute: NSAttributeDescription?) throws -> String {
        guard let attribute else {
            let key: Int64
            switch value {
            case let object as NSManagedObject:
                guard !object.objectID.isTemporaryID else { return "NULL" }
                key = object.objectID.primaryKey
            case let id as NSManagedObjectID:
                guard !id.isTemporaryID else { return "NULL" }
                key = id.primaryKey
            default:
                throw NotCompiled()
            }
            binds.append(.integer(key))
            return "$\(binds.count)"
        }
        let slot = SlotValue(attributeValue: value, for: attribute)
        if case .invalid = slot { throw NotCompiled() }
        // A number compared with an integer column keeps its fraction: `age > 2.5`.
        if case .int = slot, let number = value as? NSNumber, Double(truncating: number) != Double(Int64(truncating: number)) {
            binds.append(.real(Double(truncating: number)))
        } else {
            binds.append(PostgreSQLValues.value(slot, attribute: attribute))
        }
        return PostgreSQLValues.parameter(binds.count, for: attribute)
    }

    private static func unwrapped(_ value: Any?) -> Any? {
        guard let value, !(value is NSNull) else { return nil }
        return value
    }

    private static func elements(_ value: Any?) -> [Any?]? {
        switch value {
        case let array as [Any?]: array
        case let array as [Any]: array
        case let set as Set<AnyHashable>: Array(set)
        case let array as NSArray: array.map { $0 }
        case let set as NSSet: set.allObjects
        default: nil
        }
    }

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `text` with LIKE's own wildcards and escape taken literally.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// Core Data's LIKE pattern (`*` any run, `?` one character, `\` escapes) as SQL's.
    private static func likePattern(_ text: String) -> String {
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                result += escaped(String(character))
                escaping = false
                continue
            }
            switch character {
            case "\\": escaping = true
            case "*": result.append("%")
            case "?": result.append("_")
            default: result += escaped(String(character))
            }
        }
        return result
    }

    // MARK: Key paths

    private mutating func operand(_ expression: NSExpression) throws -> Operand {
        switch expression.storage {
        case .constant(let value): return .constant(value)
        case .evaluatedObject: return .column("\(alias).Z_PK", nil)
        case .keyPath(let path): return try resolve(path)
        default: throw NotCompiled()
        }
    }

    /// A column through to-one relationships (LEFT JOINs), or an object key.
    private mutating func resolve(_ path: String) throws -> Operand {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        var currentAlias = alias
        var walked = ""
        for (index, part) in parts.enumerated() {
            guard let property = current.propertiesByName[part] else {
                if part == "self", index == parts.count - 1 { return .column("\(currentAlias).Z_PK", nil) }
                throw CoreDataError.make(
                    NSCoreDataError, "Keypath \(part) not found in entity \(current.name ?? "?")",
                    userInfo: ["entity": current.name ?? "", "key": part])
            }
            guard !property.isTransient else { throw NotCompiled() }
            let isLast = index == parts.count - 1
            walked += (walked.isEmpty ? "" : ".") + part
            switch property {
            case let attribute as NSAttributeDescription:
                guard isLast, let column = attribute.columnName else { throw NotCompiled() }
                return .column("\(currentAlias).\(column)", attribute)
            case let relationship as NSRelationshipDescription where !relationship.isToMany:
                guard let foreignKey = relationship.columnName else { throw NotCompiled() }
                if isLast { return .column("\(currentAlias).\(foreignKey)", nil) }
                let destination = relationship.destinationEntity!
                if let known = joins.firstIndex(where: { $0.path == walked }) {
                    currentAlias = "j\(known + 1)"
                } else {
                    let joined = "j\(joins.count + 1)"
                    joins.append((walked, "LEFT JOIN \(destination.layout!.tableName) \(joined) ON \(joined).Z_PK = \(currentAlias).\(foreignKey)"))
                    currentAlias = joined
                }
                current = destination
            default:
                throw NotCompiled()
            }
        }
        throw NotCompiled()
    }

    /// The ORDER BY term of a sort descriptor, or nil when SQL cannot order as the descriptor does.
    mutating func orderTerm(_ descriptor: NSSortDescriptor) throws -> String? {
        guard let key = descriptor.key else { return nil }
        let selector = (descriptor as? KeyedSortDescriptor)?.comparisonSelector
        guard selector == nil || selector == SortComparison.compare.rawValue else { return nil }
        guard case .column(let column, let attribute) = try resolve(key), let attribute,
            ["number", "date", "string"].contains(Self.valueClass(attribute))
        else { return nil }
        let collation = attribute.attributeType == .stringAttributeType ? " COLLATE \"C\"" : ""
        return "\(column)\(collation) \(descriptor.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
    }
}
