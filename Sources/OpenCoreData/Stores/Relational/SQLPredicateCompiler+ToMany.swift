extension SQLPredicateCompiler {
    /// `ANY` / `ALL` over the elements: `EXISTS` / `NOT EXISTS` of a correlated subquery.
    mutating func quantified(
        _ collection: SQLCollection, all: Bool, _ type: NSComparisonPredicate.Operator, _ right: Operand, _ predicate: NSComparisonPredicate
    ) throws -> SQLFragment {
        let (element, kind) = collection.elementValue
        if all { negationDepth += 1 }
        defer { if all { negationDepth -= 1 } }
        let condition: SQLFragment
        // In memory a nil collection (a nil to-one on the way) is compared as a nil value.
        let nilResult: Bool
        switch right {
        case .constant(let value):
            condition = try compare(element, kind, type, value, predicate.options, predicate)
            nilResult = PredicateEvaluator.compare(nil, value, type, predicate.options)
        case .value(let other, let otherKind):
            guard collection.nullableSource == nil else {
                throw unsupported(predicate, "a to-many key path through an optional to-one compares with constants only in SQL")
            }
            condition = try compareValues(element, kind, other, otherKind, type, predicate.options, predicate)
            nilResult = false
        case .elements:
            throw unsupported(predicate, "two to-many key paths are not compared with each other in SQL")
        }
        let body: SQLFragment = all ? "NOT \(collection.exists("NOT (\(condition))"))" : collection.exists(condition)
        guard let source = collection.nullableSource else { return body }
        return "(CASE WHEN \(source) IS NULL THEN \(nilResult ? always : never) ELSE \(body) END)"
    }

    /// `collection CONTAINS value` and `value IN collection`: some element equals the value.
    mutating func membership(_ collection: SQLCollection, _ other: Operand, _ predicate: NSComparisonPredicate) throws -> SQLFragment {
        let (element, kind) = collection.elementValue
        let condition: SQLFragment
        switch other {
        case .constant(let value): condition = try compare(element, kind, .equalTo, value, predicate.options, predicate)
        case .value(let value, let valueKind): condition = try compareValues(element, kind, value, valueKind, .equalTo, predicate.options, predicate)
        case .elements: throw unsupported(predicate, "two to-many key paths are not compared with each other in SQL")
        }
        let body = collection.exists(condition)
        guard let source = collection.nullableSource else { return body }
        // In memory a nil collection contains nothing.
        return "(CASE WHEN \(source) IS NULL THEN \(never) ELSE \(body) END)"
    }

    /// `@count`, `@sum.x`, `@avg.x`, `@min.x`, `@max.x` as a scalar subquery. The results equal
    /// the evaluator's: a count of every element, sums and averages of the non-nil numbers (0 when
    /// there are none), the least or greatest non-nil value (nil when there is none).
    func aggregate(_ op: CollectionOperator, _ collection: SQLCollection, _ predicate: Foundation.NSPredicate) throws -> Operand {
        if op == .count { return .value(collection.scalar("COUNT(*)"), .number) }
        let (element, kind) = collection.elementValue
        guard case .attribute = kind else {
            throw unsupported(predicate, "@sum, @avg, @min and @max are compiled to SQL over an attribute of the elements")
        }
        switch op {
        case .sum, .average:
            guard kind.valueClass == .number else { throw unsupported(predicate, "@sum and @avg are compiled to SQL over number attributes") }
            return .value(collection.scalar(op == .sum ? dialect.total(element) : "COALESCE(AVG(\(element)), 0)"), .number)
        default:
            guard kind.valueClass != .opaque else { throw unsupported(predicate, "transformable values have no order in SQL") }
            return .value(collection.scalar("\(raw: op == .min ? "MIN" : "MAX")(\(ordered(element, kind)))"), kind)
        }
    }

    /// `SUM(x)`, `COUNT(x)`, `AVG(x)`, `MIN(x)`, `MAX(x)` over the rows of a group, as SQL
    /// computes them (a group of nil values sums to nil).
    func groupAggregate(_ op: CollectionOperator, _ value: SQLFragment, _ kind: SQLValueKind, _ predicate: Foundation.NSPredicate) throws -> Operand {
        switch op {
        case .count: return .value("COUNT(\(value))", .number)
        case .sum, .average:
            guard kind.valueClass == .number else { throw unsupported(predicate, "sum: and average: are computed over numbers") }
            return .value("\(raw: op == .sum ? "SUM" : "AVG")(\(value))", .number)
        default:
            guard kind.valueClass != .opaque else { throw unsupported(predicate, "transformable values have no order in SQL") }
            return .value("\(raw: op == .min ? "MIN" : "MAX")(\(ordered(value, kind)))", kind)
        }
    }

    /// `value` in the evaluator's order: strings by Unicode scalars.
    func ordered(_ value: SQLFragment, _ kind: SQLValueKind) -> SQLFragment {
        kind.valueClass == .string ? dialect.inScalarOrder(value) : value
    }

    /// `SUBQUERY(collection, $x, predicate)`: the collection's elements restricted by the
    /// predicate, compiled with the element as the evaluated object and as `$x`.
    mutating func subquery(
        _ source: NSExpression, _ variable: String, _ inner: Foundation.NSPredicate, _ predicate: Foundation.NSPredicate
    ) throws -> SQLCollection {
        guard case .elements(var collection) = try operand(source, of: predicate) else {
            throw unsupported(predicate, "SUBQUERY is compiled to SQL over a to-many key path only")
        }
        guard collection.elementsAreObjects() else {
            throw unsupported(predicate, "SUBQUERY over attribute values is not compiled to SQL")
        }
        let element = Scope(alias: collection.alias, entity: collection.entity, mayBeNull: collection.elementsMayBeNull)
        var nested = SQLPredicateCompiler(
            entity: element.entity, alias: element.alias, aliasMayBeNull: element.mayBeNull, store: store, dialect: dialect, names: joins.names)
        nested.variables = variables
        nested.variables[variable] = element
        let condition = try nested.compile(inner)
        collection.restrict(condition, joins: nested.joins.sql)
        return collection
    }
}
