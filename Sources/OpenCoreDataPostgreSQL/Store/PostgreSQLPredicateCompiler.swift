import OpenCoreData

/// Compiles a predicate to a PostgreSQL condition, every value bound as a parameter (`$n`) and
/// every key path checked against the model, for the forms SQL answers exactly as the in-memory
/// evaluator does: comparisons of attributes (through to-one relationships) with constants or
/// with each other, `IN`, `BETWEEN`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `LIKE` (case-
/// insensitive for ASCII patterns), objects by identity, `AND`/`OR`/`NOT`, and over to-many key
/// paths `ANY`/`ALL`/`NONE`, `IN`/`CONTAINS`, `@count`/`@sum`/`@avg`/`@min`/`@max` and
/// `SUBQUERY` as correlated subqueries (`PostgreSQLPredicateCompiler+ToMany`).
///
/// Anything else (`MATCHES`, diacritic folding, case folding beyond ASCII, functions) throws
/// `NotCompiled`, and the store evaluates the whole predicate in memory over the entity's rows:
/// the same answer, at the cost of reading the table (docs/compatibility.md).
struct PostgreSQLPredicateCompiler {
    struct NotCompiled: Error {}

    let entity: NSEntityDescription
    let alias: String
    /// Parameters bound so far, `$1` first.
    var binds: [PostgreSQLValue] = []
    /// The LEFT JOINs to-one key paths need, by the alias they start from and relationship path.
    private(set) var joins: [(start: String, path: String, alias: String, sql: String)] = []
    var negationDepth = 0
    /// The last number given to a table alias (`j1`, `s2`…); a nested compiler (SUBQUERY's)
    /// continues from its parent's, so that no two aliases of one statement meet.
    var aliasCount = 0
    /// The objects `$x` stands for inside a SUBQUERY.
    var variables: [String: Scope] = [:]
    /// The values a dictionary fetch selects, by the keys its HAVING clause names them with
    /// (`books > 1`, `$books > 1`).
    var namedValues: [String: (sql: String, attribute: NSAttributeDescription?)] = [:]
    /// Whether `count:`, `sum:`… of a key path aggregate the rows of a group (a dictionary fetch
    /// with groups or aggregates) rather than only the elements of a to-many.
    var aggregatesGroups = false

    /// Objects of `entity` at `alias` in the statement; `mayBeNull` when a LEFT JOIN reached them.
    struct Scope {
        let alias: String
        let entity: NSEntityDescription
        var mayBeNull = false
    }

    var scope: Scope { Scope(alias: alias, entity: entity) }

    mutating func nextAlias(_ prefix: String) -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }

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

    enum Operand {
        case constant(Any?)
        /// A column (or a scalar subquery) and the attribute it holds; nil for an object key
        /// (`Z_PK` or a foreign key).
        case column(String, NSAttributeDescription?)
        /// The elements of a to-many key path or a SUBQUERY.
        case elements(PostgreSQLCollection)
    }

    private mutating func compile(_ predicate: NSComparisonPredicate) throws -> String {
        guard !predicate.options.contains(.diacriticInsensitive) else { throw NotCompiled() }
        var left = try operand(predicate.leftExpression)
        var right = try operand(predicate.rightExpression)
        var type = predicate.predicateOperatorType
        if predicate.comparisonPredicateModifier != .direct {
            guard case .elements(let collection) = left else { throw NotCompiled() }
            return try quantified(collection, all: predicate.comparisonPredicateModifier == .all, type, right, predicate.options)
        }
        if case .elements(let collection) = left, type == .contains { return try membership(collection, right, predicate.options) }
        if case .elements(let collection) = right, type == .in { return try membership(collection, left, predicate.options) }
        if case .elements = left { throw NotCompiled() }
        if case .elements = right { throw NotCompiled() }
        if case .constant = left, case .column = right {
            // `3 < count` is `count > 3`.
            let mirrored: [NSComparisonPredicate.Operator: NSComparisonPredicate.Operator] = [
                .equalTo: .equalTo, .notEqualTo: .notEqualTo, .lessThan: .greaterThan, .lessThanOrEqualTo: .greaterThanOrEqualTo,
                .greaterThan: .lessThan, .greaterThanOrEqualTo: .lessThanOrEqualTo,
            ]
            guard let flipped = mirrored[type] else { throw NotCompiled() }
            type = flipped
            swap(&left, &right)
        }
        let condition: String
        switch (left, right) {
        case (.column(let column, let attribute), .constant(let value)):
            condition = try compare(column, attribute, type, value, predicate.options)
        case (.column(let a, let attributeA), .column(let b, let attributeB)):
            condition = try compareColumns(a, attributeA, b, attributeB, type, predicate.options)
        default:
            throw NotCompiled()
        }
        // Under NOT, a NULL must count as false, as the evaluator's comparison with nil does.
        return negationDepth > 0 ? "COALESCE(\(condition), FALSE)" : condition
    }

    /// Two columns (or scalar subqueries) compared, when SQL compares them as the evaluator does.
    mutating func compareColumns(
        _ a: String, _ attributeA: NSAttributeDescription?, _ b: String, _ attributeB: NSAttributeDescription?,
        _ type: NSComparisonPredicate.Operator, _ options: NSComparisonPredicate.Options
    ) throws -> String {
        guard let symbol = Self.symbols[type], options.isEmpty, Self.comparable(attributeA, attributeB) else { throw NotCompiled() }
        return symbol == "<>" ? "\(a) IS DISTINCT FROM \(b)" : "\(a) \(symbol) \(b)"
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

    static func valueClass(_ attribute: NSAttributeDescription) -> String {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
            .doubleAttributeType, .floatAttributeType: "number"
        case .dateAttributeType: "date"
        case .stringAttributeType: "string"
        default: "other"
        }
    }

    mutating func compare(
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
            // An empty prefix, suffix or part is in every string, as the evaluator says.
            binds.append(.text(caseless ? pattern.lowercased() : pattern))
            let target = caseless ? "lower(\(column))" : column
            return "\(target) LIKE $\(binds.count) COLLATE \"C\""
        default:
            throw NotCompiled()
        }
    }

    // MARK: Values

    /// Binds `value` as `attribute`'s column holds it, or as an object's key.
    mutating func bind(_ value: Any, for attribute: NSAttributeDescription?) throws -> String {
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

    static func unwrapped(_ value: Any?) -> Any? {
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

    mutating func operand(_ expression: NSExpression) throws -> Operand {
        switch expression.storage {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .column("\(alias).Z_PK", nil)
        case .keyPath(let path):
            if let named = namedValues[path] { return .column(named.sql, named.attribute) }
            return try resolve(path, from: scope)
        case .variable(let name):
            if variables[name] == nil, let named = namedValues[name] { return .column(named.sql, named.attribute) }
            guard let bound = variables[name] else { throw NotCompiled() }
            return .column("\(bound.alias).Z_PK", nil)
        case .operandKeyPath(let base, let path):
            switch base.storage {
            case .variable(let name):
                guard let bound = variables[name] else { throw NotCompiled() }
                return try resolve(path, from: bound)
            case .evaluatedObject:
                return try resolve(path, from: scope)
            case .subquery:
                guard case .elements(var collection) = try operand(base) else { throw NotCompiled() }
                return try resolve(path.split(separator: ".").map(String.init)[...], in: &collection)
            default:
                throw NotCompiled()
            }
        case .subquery(let collection, let variable, let inner):
            return .elements(try subquery(collection, variable, inner))
        case .function(IndexSymbol.functionName, let arguments) where arguments.count == 2 && arguments[1].constantIfAny as? IndexSymbol == .size:
            // `books[SIZE]` is `books.@count`.
            guard case .elements(let collection) = try operand(arguments[0]) else { throw NotCompiled() }
            return try aggregate(.count, collection)
        case .function(let name, let arguments) where CollectionOperator(function: name) != nil && arguments.count == 1:
            let op = CollectionOperator(function: name)!
            switch try operand(arguments[0]) {
            case .elements(let collection): return try aggregate(op, collection)
            case .column(let value, let attribute) where aggregatesGroups: return try groupAggregate(op, value, attribute)
            default: throw NotCompiled()
            }
        default:
            throw NotCompiled()
        }
    }

    /// A column through to-one relationships (LEFT JOINs), an object key, or the elements of the
    /// first to-many the path meets (and what follows it).
    mutating func resolve(_ path: String, from start: Scope) throws -> Operand {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = start.entity
        var currentAlias = start.alias
        var walked = ""
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            guard let property = current.propertiesByName[part] else {
                if part == "self", isLast { return .column("\(currentAlias).Z_PK", nil) }
                if part.hasPrefix("@") { throw NotCompiled() }
                throw CoreDataError.make(
                    NSCoreDataError, "Keypath \(part) not found in entity \(current.name ?? "?")",
                    userInfo: ["entity": current.name ?? "", "key": part])
            }
            guard !property.isTransient else { throw NotCompiled() }
            walked += (walked.isEmpty ? "" : ".") + part
            switch property {
            case let attribute as NSAttributeDescription:
                guard isLast, let column = attribute.columnName else { throw NotCompiled() }
                return .column("\(currentAlias).\(column)", attribute)
            case let relationship as NSRelationshipDescription where relationship.isToMany:
                var collection = try PostgreSQLCollection(
                    relationship, source: currentAlias, sourceMayBeNull: index > 0 || start.mayBeNull, alias: nextAlias("s"))
                return try resolve(parts[(index + 1)...], in: &collection)
            case let relationship as NSRelationshipDescription:
                guard let foreignKey = relationship.columnName else { throw NotCompiled() }
                if isLast { return .column("\(currentAlias).\(foreignKey)", nil) }
                let destination = relationship.destinationEntity!
                if let known = joins.first(where: { $0.start == start.alias && $0.path == walked }) {
                    currentAlias = known.alias
                } else {
                    let joined = nextAlias("j")
                    let sql = "LEFT JOIN \(destination.layout!.tableName) \(joined) ON \(joined).Z_PK = \(currentAlias).\(foreignKey)"
                    joins.append((start.alias, walked, joined, sql))
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
        guard case .column(let column, let attribute) = try resolve(key, from: scope), let attribute,
            ["number", "date", "string"].contains(Self.valueClass(attribute))
        else { return nil }
        let collation = attribute.attributeType == .stringAttributeType ? " COLLATE \"C\"" : ""
        return "\(column)\(collation) \(descriptor.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
    }
}
