import OpenCoreData

/// To-many key paths in SQL: `ANY`/`ALL` as `EXISTS`/`NOT EXISTS` of a correlated subquery,
/// membership, collection operators as scalar subqueries, and `SUBQUERY` as a restricted
/// collection, each selecting what the in-memory evaluator selects.
extension PostgreSQLPredicateCompiler {
    /// `ANY` / `ALL` over the elements.
    mutating func quantified(
        _ collection: PostgreSQLCollection, all: Bool, _ type: NSComparisonPredicate.Operator, _ right: Operand,
        _ options: NSComparisonPredicate.Options
    ) throws -> String {
        let (element, attribute) = collection.elementValue
        var condition: String
        // In memory a nil collection (a nil to-one on the way) is compared as a nil value.
        let nilResult: Bool
        switch right {
        case .constant(let value):
            condition = try compare(element, attribute, type, value, options)
            nilResult = PredicateEvaluator.compare(nil, value, type, options)
        case .column(let other, let otherAttribute):
            guard collection.nullableSource == nil else { throw NotCompiled() }
            condition = try compareColumns(element, attribute, other, otherAttribute, type, options)
            nilResult = false
        case .elements:
            throw NotCompiled()
        }
        // An element whose comparison is NULL (a nil value) fails it, as in memory.
        condition = "COALESCE(\(condition), FALSE)"
        let body = all ? "NOT \(collection.exists("NOT \(condition)"))" : collection.exists(condition)
        guard let source = collection.nullableSource else { return body }
        return "(CASE WHEN \(source) IS NULL THEN \(nilResult ? "TRUE" : "FALSE") ELSE \(body) END)"
    }

    /// `collection CONTAINS value` and `value IN collection`: some element equals the value.
    mutating func membership(_ collection: PostgreSQLCollection, _ other: Operand, _ options: NSComparisonPredicate.Options) throws -> String {
        let (element, attribute) = collection.elementValue
        let condition: String
        switch other {
        case .constant(let value): condition = try compare(element, attribute, .equalTo, value, options)
        case .column(let value, let valueAttribute): condition = try compareColumns(element, attribute, value, valueAttribute, .equalTo, options)
        case .elements: throw NotCompiled()
        }
        let body = collection.exists("COALESCE(\(condition), FALSE)")
        guard let source = collection.nullableSource else { return body }
        // In memory a nil collection contains nothing.
        return "(CASE WHEN \(source) IS NULL THEN FALSE ELSE \(body) END)"
    }

    /// `@count`, `@sum.x`, `@avg.x`, `@min.x`, `@max.x` as a scalar subquery, with the evaluator's
    /// results: a count of every element, sums and averages of the non-nil numbers (0 when there
    /// are none), the least or greatest non-nil value (nil when there is none).
    mutating func aggregate(_ op: CollectionOperator, _ collection: PostgreSQLCollection) throws -> Operand {
        if op == .count { return .column(collection.scalar("count(*)"), Self.number(.integer64AttributeType)) }
        guard case (let element, let attribute?) = collection.elementValue else { throw NotCompiled() }
        switch op {
        case .sum, .average:
            guard Self.valueClass(attribute) == "number" else { throw NotCompiled() }
            let function = op == .sum ? "sum" : "avg"
            return .column(collection.scalar("COALESCE(\(function)(\(element)), 0)"), Self.number(.doubleAttributeType))
        default:
            // The least or greatest element: a group's, over the collection's rows.
            guard case .column(let extreme, _) = try groupAggregate(op, element, attribute) else { throw NotCompiled() }
            return .column(collection.scalar(extreme), attribute)
        }
    }

    /// `count:`, `sum:`, `average:`, `min:`, `max:` over the rows of a group, as SQL computes
    /// them: NULLs left out, sums of integers integers, averages doubles.
    func groupAggregate(_ op: CollectionOperator, _ value: String, _ attribute: NSAttributeDescription?) throws -> Operand {
        switch op {
        case .count:
            return .column("count(\(value))", Self.number(.integer64AttributeType))
        case .sum, .average:
            guard let attribute, Self.valueClass(attribute) == "number" else { throw NotCompiled() }
            if op == .average { return .column("avg(\(value))::float8", Self.number(.doubleAttributeType)) }
            let integral = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType].contains(attribute.attributeType)
            return integral ? .column("sum(\(value))::int8", Self.number(.integer64AttributeType)) : .column("sum(\(value))", Self.number(.doubleAttributeType))
        case .min, .max:
            guard let attribute, ["number", "date", "string"].contains(Self.valueClass(attribute)) else { throw NotCompiled() }
            let collation = attribute.attributeType == .stringAttributeType ? " COLLATE \"C\"" : ""
            return .column("\(op == .min ? "min" : "max")(\(value)\(collation))", attribute)
        }
    }

    /// An attribute describing a computed number (a count, a sum), for binding what it is
    /// compared with.
    private static func number(_ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = "aggregate"
        attribute.attributeType = type
        return attribute
    }

    /// `SUBQUERY(collection, $x, predicate)`: the collection's elements restricted by the
    /// predicate, compiled with the element as the evaluated object and as `$x`.
    mutating func subquery(_ source: NSExpression, _ variable: String, _ inner: Foundation.NSPredicate) throws -> PostgreSQLCollection {
        guard case .elements(var collection) = try operand(source) else { throw NotCompiled() }
        guard collection.elementsAreObjects(alias: nextAlias("s")) else { throw NotCompiled() }
        var nested = PostgreSQLPredicateCompiler(entity: collection.entity, alias: collection.alias, binds: binds)
        nested.aliasCount = aliasCount
        nested.variables = variables
        nested.variables[variable] = Scope(alias: collection.alias, entity: collection.entity, mayBeNull: collection.elementsMayBeNull)
        let condition = try nested.compile(inner)
        binds = nested.binds
        aliasCount = nested.aliasCount
        collection.restrict(condition, joins: nested.joinClause)
        return collection
    }

    /// The rest of a key path after a to-many: more relationships, an attribute, or a collection
    /// operator (`@count`, `@sum.pages`) that turns the elements into one value.
    mutating func resolve(_ parts: ArraySlice<String>, in collection: inout PostgreSQLCollection, toOneOnly: Bool = false) throws -> Operand {
        var index = parts.startIndex
        while index < parts.endIndex {
            let part = parts[index]
            if part.hasPrefix("@") {
                guard !toOneOnly, let op = CollectionOperator(keyPathOperator: part) else { throw NotCompiled() }
                if op == .count {
                    guard index == parts.endIndex - 1 else { throw NotCompiled() }
                } else {
                    // In memory the operator reads one value per element: the rest of the path
                    // stays on to-one relationships.
                    _ = try resolve(parts[(index + 1)...], in: &collection, toOneOnly: true)
                }
                return try aggregate(op, collection)
            }
            guard let property = collection.entity.propertiesByName[part] else {
                throw CoreDataError.make(
                    NSCoreDataError, "Keypath \(part) not found in entity \(collection.entity.name ?? "?")",
                    userInfo: ["entity": collection.entity.name ?? "", "key": part])
            }
            guard !property.isTransient else { throw NotCompiled() }
            let isLast = index == parts.endIndex - 1
            switch property {
            case let attribute as NSAttributeDescription:
                guard isLast, let column = attribute.columnName else { throw NotCompiled() }
                collection.end(onAttribute: attribute, column: column, finalAlias: nextAlias("s"))
            case let relationship as NSRelationshipDescription:
                if toOneOnly, relationship.isToMany { throw NotCompiled() }
                if isLast, !relationship.isToMany {
                    try collection.end(onToOne: relationship, finalAlias: nextAlias("s"))
                } else {
                    try collection.follow(relationship, alias: nextAlias("s"), finalAlias: nextAlias("s"))
                }
            default:
                throw NotCompiled()
            }
            index += 1
        }
        return .elements(collection)
    }
}
