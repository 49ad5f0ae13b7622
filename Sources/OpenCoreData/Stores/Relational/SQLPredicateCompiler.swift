import Foundation

/// Compiles a predicate to a SQL condition with every value bound as a parameter and every key
/// path checked against the model.
///
/// Under a `NOT` every condition it emits is 0 or 1, never NULL, so that `NOT` selects exactly the
/// rows the in-memory evaluator selects (`name != "x"` keeps rows whose name is NULL, as in
/// memory). Outside any `NOT`, a NULL counts as false, so `=`, `<`, `BETWEEN` and `IN` against a
/// constant are emitted plain, without the `IS NOT NULL` guards that cost a count a tenth.
/// To-one key paths become LEFT JOINs; to-many key paths, `ANY`/`ALL`/`NONE`, `@count` and the other
/// collection operators, and `SUBQUERY` become correlated subqueries (`SQLCollection`). String
/// operators fold with the dialect's `SQLEvaluatorFunctions`, which call the evaluator's own
/// folding. A predicate the store cannot express in SQL is refused with Core Data's
/// `NSPersistentStoreUnsupportedRequestTypeError`, never evaluated in memory over the table; one
/// that needs the evaluator's functions where the dialect has none throws `SQLNeedsEvaluator`.
///
/// Both SQL stores compile with it: what differs between their SQL is the `SQLDialect`.
package struct SQLPredicateCompiler {
    package let entity: NSEntityDescription
    /// The alias of the table row holding the evaluated object in this scope.
    package let alias: String
    /// Whether that row may be missing (inside a SUBQUERY over a nil to-one).
    let aliasMayBeNull: Bool
    /// The store whose rows the statement reads: an object of another store matches no row.
    let store: NSPersistentStore
    package let dialect: any SQLDialect
    /// The LEFT JOINs of this scope's FROM clause.
    package var joins: SQLJoins
    /// SUBQUERY iterator variables in scope.
    var variables: [String: Scope] = [:]
    /// Names a HAVING clause or a sort descriptor may use (as a key path or a `$variable`) for
    /// the values a dictionary fetch computes.
    package var namedValues: [String: (SQLFragment, SQLValueKind)] = [:]
    /// In a grouped dictionary fetch, `sum:`, `count:`, `min:`, `max:` and `average:` of a
    /// scalar key path aggregate the group (`SUM(x)`) instead of being refused.
    package var aggregatesGroups = false
    /// How many `NOT`s (or `ALL`s, which compile to `NOT EXISTS … NOT`) enclose the condition
    /// being compiled: where it is 0, a NULL result selects nothing, like a 0.
    var negationDepth = 0

    /// Where key paths start: a table alias holding objects of an entity.
    package struct Scope {
        let alias: String
        let entity: NSEntityDescription
        let mayBeNull: Bool
    }

    package init(
        entity: NSEntityDescription, alias: String, aliasMayBeNull: Bool = false, store: NSPersistentStore, dialect: any SQLDialect,
        names: SQLAliases
    ) {
        self.entity = entity
        self.alias = alias
        self.aliasMayBeNull = aliasMayBeNull
        self.store = store
        self.dialect = dialect
        self.joins = SQLJoins(names: names)
    }

    package var scope: Scope { Scope(alias: alias, entity: entity, mayBeNull: aliasMayBeNull) }

    /// The conditions that always and never hold, in the dialect's words.
    var always: SQLFragment { SQLFragment(raw: dialect.words.alwaysTrue) }
    var never: SQLFragment { SQLFragment(raw: dialect.words.alwaysFalse) }

    package mutating func compile(_ predicate: Foundation.NSPredicate) throws -> SQLFragment {
        // Compound first: Linux's Foundation makes every compound predicate equal FALSEPREDICATE.
        if let compound = predicate as? NSCompoundPredicate {
            let negates = compound.compoundPredicateType == .not
            if negates { negationDepth += 1 }
            defer { if negates { negationDepth -= 1 } }
            let parts = try compound.subpredicates.map { "(\(try compile($0)))" as SQLFragment }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? always : SQLFragment.joined(parts, separator: " AND ")
            case .or: return parts.isEmpty ? never : SQLFragment.joined(parts, separator: " OR ")
            case .not: return "NOT \(parts.first ?? always)"
            @unknown default: break
            }
        }
        if let comparison = predicate as? NSComparisonPredicate { return try compile(comparison) }
        switch PredicateKind(predicate) {
        case .truePredicate: return always
        case .falsePredicate: return never
        case .block, .other: throw unsupported(predicate, "block predicates run only in memory")
        }
    }

    func unsupported(_ predicate: Foundation.NSPredicate, _ reason: String) -> NSError {
        CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "The \(dialect.words.storeName) store can't run the predicate \(PredicateFormatter.format(predicate)) on entity \(entity.name ?? "?"): \(reason).",
            userInfo: ["predicate": predicate, "entity": entity.name ?? ""])
    }

    // MARK: Comparisons

    private mutating func compile(_ predicate: NSComparisonPredicate) throws -> SQLFragment {
        var left = try operand(predicate.leftExpression, of: predicate)
        var right = try operand(predicate.rightExpression, of: predicate)
        var type = predicate.predicateOperatorType
        let options = predicate.options
        if case .constant = left, case .constant = right {
            return PredicateEvaluator.evaluate(predicate, object: nil, bindings: nil) ? always : never
        }
        if predicate.comparisonPredicateModifier != .direct, case .elements(let collection) = left {
            return try quantified(collection, all: predicate.comparisonPredicateModifier == .all, type, right, predicate)
        }
        // A to-many key path compares through membership only, as Core Data's SQL store requires.
        if case .elements(let collection) = left, type == .contains { return try membership(collection, right, predicate) }
        if case .elements(let collection) = right, type == .in { return try membership(collection, left, predicate) }
        if case .elements = left { throw toManyNeedsQuantifier(predicate) }
        if case .elements = right { throw toManyNeedsQuantifier(predicate) }
        if case .constant = left, case .value = right {
            // `3 < count` is `count > 3`; `"abc" CONTAINS name` is `name IN "abc"`.
            let mirrored: [NSComparisonPredicate.Operator: NSComparisonPredicate.Operator] = [
                .equalTo: .equalTo, .notEqualTo: .notEqualTo, .lessThan: .greaterThan, .lessThanOrEqualTo: .greaterThanOrEqualTo,
                .greaterThan: .lessThan, .greaterThanOrEqualTo: .lessThanOrEqualTo, .in: .contains, .contains: .in,
            ]
            guard let flipped = mirrored[type] else { throw unsupported(predicate, "the key path must be on the left of \(PredicateFormatter.operatorName(type))") }
            type = flipped
            swap(&left, &right)
        }
        switch (left, right) {
        case (.value(let column, let kind), .constant(let value)):
            return try compare(column, kind, type, value, options, predicate)
        case (.value(let a, let kindA), .value(let b, let kindB)):
            return try compareValues(a, kindA, b, kindB, type, options, predicate)
        default:
            throw unsupported(predicate, "unreachable operand combination")
        }
    }

    private func toManyNeedsQuantifier(_ predicate: NSComparisonPredicate) -> NSError {
        unsupported(predicate, "a to-many key path compares only with ANY, ALL, NONE, IN, CONTAINS or a collection operator such as @count")
    }

    // MARK: Operands

    /// What an expression compiles to.
    package enum Operand {
        case constant(Any?)
        /// A scalar SQL value (a column, a scalar subquery) and how its values are stored.
        case value(SQLFragment, SQLValueKind)
        /// The elements of a to-many key path or SUBQUERY.
        case elements(SQLCollection)
    }

    package mutating func operand(_ expression: NSExpression, of predicate: Foundation.NSPredicate) throws -> Operand {
        switch expression.storage {
        case .constant(let value):
            return .constant(value)
        case .aggregate(let items):
            return .constant(try items.map { item -> Any? in
                guard case .constant(let value) = item.storage else { throw unsupported(predicate, "only constants are compiled inside { }") }
                return value
            })
        case .evaluatedObject:
            return .value(SQLFragment(raw: "\(alias).Z_PK"), .object(entity))
        case .keyPath(let path):
            if let named = namedValues[path] { return .value(named.0, named.1) }
            return try resolve(path, from: scope, predicate)
        case .variable(let name):
            if variables[name] == nil, let named = namedValues[name] { return .value(named.0, named.1) }
            guard let bound = variables[name] else { throw unsupported(predicate, "the variable $\(name) was not substituted") }
            return .value(SQLFragment(raw: "\(bound.alias).Z_PK"), .object(bound.entity))
        case .operandKeyPath(let base, let path):
            switch base.storage {
            case .variable(let name):
                guard let bound = variables[name] else { throw unsupported(predicate, "the variable $\(name) was not substituted") }
                return try resolve(path, from: bound, predicate)
            case .evaluatedObject:
                return try resolve(path, from: scope, predicate)
            case .subquery:
                guard case .elements(var collection) = try operand(base, of: predicate) else { throw unsupported(predicate, "unreachable") }
                return try resolve(path.split(separator: ".").map(String.init)[...], in: &collection, predicate)
            default:
                throw unsupported(predicate, "a key path applied to a \(base.expressionType) expression is not compiled to SQL")
            }
        case .subquery(let collection, let variable, let inner):
            return .elements(try subquery(collection, variable, inner, predicate))
        case .function(let name, let arguments) where ["add:to:", "from:subtract:", "multiply:by:", "divide:by:"].contains(name) && arguments.count == 2:
            return try arithmetic(name, arguments, expression, predicate)
        case .function(IndexSymbol.functionName, let arguments) where arguments.count == 2 && arguments[1].constantIfAny as? IndexSymbol == .size:
            // `books[SIZE]` is `books.@count`; other indexes have no order to use in SQL.
            guard case .elements(let collection) = try operand(arguments[0], of: predicate) else {
                throw unsupported(predicate, "[SIZE] is compiled to SQL only after a to-many key path")
            }
            return try aggregate(.count, collection, predicate)
        case .function(let name, let arguments) where CollectionOperator(function: name) != nil && arguments.count == 1:
            let op = CollectionOperator(function: name)!
            switch try operand(arguments[0], of: predicate) {
            case .elements(let collection):
                return try aggregate(op, collection, predicate)
            case .value(let value, let kind) where aggregatesGroups:
                return try groupAggregate(op, value, kind, predicate)
            default:
                throw unsupported(predicate, "\(name) is compiled to SQL only over a to-many key path, or a key path in a grouped dictionary fetch")
            }
        default:
            throw unsupported(predicate, "\(expression.expressionType) expressions such as \(PredicateFormatter.format(expression)) are not compiled to SQL")
        }
    }

    /// A key path from `start`: a column through to-one joins, or the elements of the first to-many
    /// it meets (and what follows it in the path).
    ///
    /// - Throws: `NSCoreDataError` naming the entity and key when the path is not in the model.
    package mutating func resolve(_ path: String, from start: Scope, _ predicate: Foundation.NSPredicate) throws -> Operand {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = start.entity
        var currentAlias = start.alias
        for (index, part) in parts.enumerated() {
            if part.hasPrefix("@") {
                throw unsupported(predicate, "the collection operator \(part) in \(path) follows no to-many relationship")
            }
            let isLast = index == parts.count - 1
            // `self` at the end of a path is the object reached, as the evaluator reads it.
            if part == "self", isLast, current.propertiesByName[part] == nil {
                return .value(SQLFragment(raw: "\(currentAlias).Z_PK"), .object(current))
            }
            let property = try modelProperty(part, of: current)
            switch property {
            case let composite as NSCompositeAttributeDescription:
                let leaf = try compositeLeaf(composite, parts[(index + 1)...], path)
                return .value(SQLFragment(raw: "\(currentAlias).\(leaf.column)"), .attribute(leaf.attribute))
            case let attribute as NSAttributeDescription:
                guard !attribute.isTransient, let column = attribute.columnName else { throw noColumn(path) }
                let value = SQLFragment(raw: "\(currentAlias).\(column)")
                if isLast { return .value(value, .attribute(attribute)) }
                // `name.length`: a string's length in UTF-16 code units, as KVC reads it.
                guard index == parts.count - 2, parts[index + 1] == "length", attribute.attributeType == .stringAttributeType else {
                    throw notThroughToOne(path, part)
                }
                return .value(dialect.utf16Length(value), .number)
            case let relationship as NSRelationshipDescription where relationship.isToMany:
                var collection = try SQLCollection(
                    relationship, source: currentAlias, sourceMayBeNull: index > 0 || start.mayBeNull, names: joins.names)
                return try resolve(parts[(index + 1)...], in: &collection, predicate)
            case let relationship as NSRelationshipDescription:
                guard !relationship.isTransient, let foreignKey = relationship.columnName else { throw noColumn(path) }
                if isLast { return .value(SQLFragment(raw: "\(currentAlias).\(foreignKey)"), .object(relationship.destinationEntity!)) }
                currentAlias = joins.join(relationship, from: currentAlias)
                current = relationship.destinationEntity!
            default:
                throw noColumn(path)
            }
        }
        throw noColumn(path)
    }

    /// The rest of a key path after a to-many: more relationships, an attribute, or a collection
    /// operator (`@count`, `@sum.pages`) that turns the elements into one value.
    mutating func resolve(
        _ parts: ArraySlice<String>, in collection: inout SQLCollection, _ predicate: Foundation.NSPredicate, toOneOnly: Bool = false
    ) throws -> Operand {
        var index = parts.startIndex
        while index < parts.endIndex {
            let part = parts[index]
            if part.hasPrefix("@") {
                guard !toOneOnly else { throw unsupported(predicate, "a collection operator may not follow another") }
                guard let op = CollectionOperator(keyPathOperator: part) else {
                    throw unsupported(predicate, "the collection operator \(part) is not compiled to SQL")
                }
                if op == .count {
                    guard index == parts.endIndex - 1 else { throw unsupported(predicate, "nothing may follow @count in a key path") }
                } else {
                    // In memory the operator reads one value per element: the rest of the path
                    // must stay on to-one relationships.
                    _ = try resolve(parts[(index + 1)...], in: &collection, predicate, toOneOnly: true)
                }
                return try aggregate(op, collection, predicate)
            }
            let property = try modelProperty(part, of: collection.entity)
            let isLast = index == parts.endIndex - 1
            switch property {
            case let composite as NSCompositeAttributeDescription:
                let leaf = try compositeLeaf(composite, parts[(index + 1)...], parts.joined(separator: "."))
                collection.end(onAttribute: leaf.attribute, column: leaf.column)
                return .elements(collection)
            case let attribute as NSAttributeDescription:
                guard isLast else { throw notThroughToOne(parts.joined(separator: "."), part) }
                guard !attribute.isTransient, attribute.columnName != nil else { throw noColumn(part) }
                collection.end(onAttribute: attribute)
            case let relationship as NSRelationshipDescription:
                guard !relationship.isTransient else { throw noColumn(part) }
                if toOneOnly, relationship.isToMany {
                    throw unsupported(predicate, "the to-many \(part) after a collection operator is not compiled to SQL")
                }
                if isLast, !relationship.isToMany {
                    collection.end(onToOne: relationship)
                } else {
                    try collection.follow(relationship)
                }
            default:
                throw noColumn(part)
            }
            index += 1
        }
        return .elements(collection)
    }

    /// The leaf column a composite's element path ends on (`magnitude.richter` → `ZRICHTER`); a
    /// path that stops at the composite, or at a composite element, names no column.
    private func compositeLeaf(
        _ composite: NSCompositeAttributeDescription, _ path: ArraySlice<String>, _ keyPath: String
    ) throws -> RelationalLayout.ElementColumn {
        guard !composite.isTransient, let leaf = composite.storedColumns.first(where: { $0.path.elementsEqual(path) }) else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The key path \(keyPath) of entity \(entity.name ?? "?") names no element of the composite attribute \(composite.name) with a column: compare its elements, such as \(composite.name).\(composite.leaves.first.map { $0.path.joined(separator: ".") } ?? "?").",
                userInfo: ["entity": entity.name ?? "", "key": keyPath])
        }
        return leaf
    }

    private func modelProperty(_ key: String, of entity: NSEntityDescription) throws -> NSPropertyDescription {
        guard let property = entity.propertiesByName[key] else {
            throw CoreDataError.make(
                NSCoreDataError, "Keypath \(key) not found in entity \(entity.name ?? "?")", userInfo: ["entity": entity.name ?? "", "key": key])
        }
        return property
    }

    private func notThroughToOne(_ path: String, _ key: String) -> NSError {
        CoreDataError.make(
            NSCoreDataError, "The key path \(path) of entity \(entity.name ?? "?") goes on after the attribute \(key).",
            userInfo: ["entity": entity.name ?? "", "key": path])
    }

    private func noColumn(_ path: String) -> NSError {
        CoreDataError.make(
            NSCoreDataError, "The key path \(path) of entity \(entity.name ?? "?") has no column to fetch on.",
            userInfo: ["entity": entity.name ?? "", "key": path])
    }
}

extension SQLPredicateCompiler {
    /// The value a sort descriptor orders by: a column through to-one relationships, or a
    /// collection operator such as `books.@count`.
    ///
    /// - Throws: `NSCoreDataError` for a key the model does not know; 134091 for a to-many key path.
    package mutating func sortValue(_ keyPath: String) throws -> (SQLFragment, SQLValueKind) {
        if let named = namedValues[keyPath] { return named }
        // `resolve` reports through a predicate; the sort key stands in one.
        let placeholder = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: keyPath), rightExpression: NSExpression(forConstantValue: nil), modifier: .direct, type: .equalTo)
        func refused(_ underlying: NSError?) -> NSError {
            var info: [String: Any] = ["entity": entity.name ?? "", "key": keyPath]
            if let underlying { info[NSUnderlyingErrorKey] = underlying }
            return CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "The \(dialect.words.storeName) store can't sort entity \(entity.name ?? "?") by \(keyPath): sort keys go through to-one relationships, or end with a collection operator such as @count.",
                userInfo: info)
        }
        let resolved: Operand
        do {
            resolved = try resolve(keyPath, from: Scope(alias: alias, entity: entity, mayBeNull: false), placeholder)
        } catch let error as NSError where error.code == NSPersistentStoreUnsupportedRequestTypeError {
            throw refused(error)
        }
        guard case .value(let value, let kind) = resolved else { throw refused(nil) }
        return (value, kind)
    }
}
