import Foundation

// The nodes of a Swift `Predicate` that have NSPredicate equivalents. Children are converted by
// the converter from their dynamic types, so one conformance serves every generic instance.

extension PredicateExpressions.Variable: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        switch try converter.binding(of: key) {
        case .evaluatedObject: return .expression(NSExpression(storage: .evaluatedObject))
        case .expression(let expression): return .expression(expression)
        case .subqueryVariable(let name): return .expression(NSExpression(forVariable: name))
        }
    }
}

extension PredicateExpressions.KeyPath: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        let base = try converter.expression(root)
        if let count = Self.collectionCount(keyPath) { return .expression(PredicateConverter.keyPath(count, of: base)) }
        if let empty = Self.emptiness(of: base) { return .predicate(empty) }
        guard let name = converter.propertyName(keyPath) else {
            throw PredicateConverter.Unsupported(description: "the key path \(keyPath) does not name managed properties")
        }
        // `SELF`: the object itself (OpenSwiftData's `persistentModelID`), compared by identity.
        if name == "self" { return .expression(base) }
        return .expression(PredicateConverter.keyPath(name, of: base))
    }

    /// `.isEmpty` of a to-many relationship (`@count == 0`) or of a string (`== ""`). A Boolean
    /// read off a collection or a string is taken for `isEmpty`, the only one predicates ask.
    private static func emptiness(of base: NSExpression) -> Foundation.NSPredicate? {
        guard Output.self == Bool.self else { return nil }
        let collection = Root.Output.self
        if collection is any StringProtocol.Type {
            return NSComparisonPredicate(
                leftExpression: base, rightExpression: NSExpression(forConstantValue: ""), modifier: .direct, type: .equalTo)
        }
        guard collection is any Collection.Type || collection is NSSet.Type || collection is NSOrderedSet.Type else { return nil }
        return NSComparisonPredicate(
            leftExpression: PredicateConverter.keyPath("@count", of: base), rightExpression: NSExpression(forConstantValue: 0),
            modifier: .direct, type: .equalTo)
    }

    /// `@count` for `.count` of a collection (a to-many relationship's `Set`, `NSSet`, array).
    /// A key path into a standard collection cannot be compared with `\C.count` (a generic
    /// one names the protocol's requirement, the predicate's the concrete type's property), so
    /// the integer that a predicate reads off a collection is taken for its count: the other
    /// integer properties of collections (`underestimatedCount`, `capacity`) are not written in
    /// predicates.
    private static func collectionCount(_ keyPath: AnyKeyPath) -> String? {
        guard Output.self == Int.self else { return nil }
        let base = Root.Output.self
        // A string's count is its length, which a store does not compare.
        if base is any StringProtocol.Type || (base as? any ManagedOptional.Type)?.wrappedType is any StringProtocol.Type { return nil }
        if base is any Collection.Type || base is NSSet.Type || base is NSOrderedSet.Type { return "@count" }
        if let optional = base as? any ManagedOptional.Type, optional.wrappedType is any Collection.Type
            || optional.wrappedType is NSSet.Type || optional.wrappedType is NSOrderedSet.Type
        {
            return "@count"
        }
        return nil
    }
}

extension PredicateExpressions.Value: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        // An optional's value, nil for none: NSExpression constants are not Swift optionals.
        let unwrapped: Any? = (value as? any ManagedOptional).map { $0.wrappedValue } ?? value
        return .expression(NSExpression(forConstantValue: unwrapped.flatMap(converter.constant)))
    }
}

extension PredicateExpressions.NilLiteral: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .expression(NSExpression(forConstantValue: nil))
    }
}

extension PredicateExpressions.Equal: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        if let predicate = try converter.stringComparison(lhs, equal: true, rhs) { return .predicate(predicate) }
        return .predicate(try converter.comparison(lhs, .equalTo, rhs))
    }
}

extension PredicateExpressions.NotEqual: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        if let predicate = try converter.stringComparison(lhs, equal: false, rhs) { return .predicate(predicate) }
        return .predicate(try converter.comparison(lhs, .notEqualTo, rhs))
    }
}

extension PredicateExpressions.Comparison: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        let type: NSComparisonPredicate.Operator
        switch op {
        case .lessThan: type = .lessThan
        case .lessThanOrEqual: type = .lessThanOrEqualTo
        case .greaterThan: type = .greaterThan
        case .greaterThanOrEqual: type = .greaterThanOrEqualTo
        @unknown default: throw PredicateConverter.Unsupported(description: "the comparison \(op)")
        }
        return .predicate(try converter.comparison(lhs, type, rhs))
    }
}

extension PredicateExpressions.Conjunction: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(CompoundPredicate(type: .and, subpredicates: [try converter.predicate(lhs), try converter.predicate(rhs)]))
    }
}

extension PredicateExpressions.Disjunction: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(CompoundPredicate(type: .or, subpredicates: [try converter.predicate(lhs), try converter.predicate(rhs)]))
    }
}

extension PredicateExpressions.Negation: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(CompoundPredicate(type: .not, subpredicates: [try converter.predicate(wrapped)]))
    }
}

extension PredicateExpressions.NilCoalesce: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        switch try converter.node(lhs) {
        case .optionalPredicate(let predicate, let unwrapped):
            // `optional.flatMap { condition } ?? flag`: the condition, or the flag for nil.
            return .predicate(try PredicateConverter.optionalCondition(predicate, unwrapped, equals: true, orNil: converter.constantBool(rhs)))
        case .predicate(let predicate):
            // `relationship?.contains { … } ?? flag`: a to-many relationship is never nil (see
            // `OptionalFlatMap`), so the flag never applies.
            _ = try converter.constantBool(rhs)
            return .predicate(predicate)
        case .expression(let value):
            return .coalescing(value, default: try converter.expression(rhs))
        case .coalescing:
            throw PredicateConverter.Unsupported(description: "'??' of '??'")
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        try converter.node(inner)
    }
}

/// `optional?.property` and `optional.flatMap { … }`: the transform reads the unwrapped value,
/// which a key path expression reads as nil when the optional is (as SQL's NULL does). A
/// condition keeps the optional, for `?? true` and `== false` to test it.
extension PredicateExpressions.OptionalFlatMap: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        let unwrapped = try converter.expression(wrapped)
        let transform = self.transform
        let node = try converter.with(variable.key, as: .expression(unwrapped)) { try $0.node(transform) }
        guard case .predicate(let predicate) = node else { return node }
        // An array of models is a to-many relationship, which Core Data never holds as nil
        // (models written for CloudKit declare it optional all the same): the condition is the
        // transform's, with no test for nil, which a store cannot run on a to-many key path.
        // An array attribute of other objects (a transformable `[NSString]?`) may be nil: its
        // test stays.
        if Wrapped.self is any ArrayOfModels.Type { return .predicate(predicate) }
        return .optionalPredicate(predicate, unwrapped: unwrapped)
    }
}

/// An array of models: in a predicate, the value of a to-many relationship.
private protocol ArrayOfModels {}
extension Array: ArrayOfModels where Element: _RelationshipDestination {}

/// `[a, b].contains($0.x)` → `x IN {a, b}`; `$0.tags.contains(tag)` → `tag IN tags`.
extension PredicateExpressions.SequenceContains: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(try converter.comparison(element, .in, sequence))
    }
}

/// `$0.items.contains { $0.done }` → `SUBQUERY(items, $v, $v.done == YES).@count > 0`.
extension PredicateExpressions.SequenceContainsWhere: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(try converter.subqueryCount(of: sequence, where: variable.key, test, negated: false, .greaterThan))
    }
}

/// `$0.items.allSatisfy { $0.done }` → no element fails: `SUBQUERY(items, $v, NOT …).@count == 0`.
extension PredicateExpressions.SequenceAllSatisfy: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(try converter.subqueryCount(of: sequence, where: variable.key, test, negated: true, .equalTo))
    }
}

/// `$0.name.starts(with: "A")` → `name BEGINSWITH "A"`.
extension PredicateExpressions.SequenceStartsWith: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(try converter.comparison(base, .beginsWith, prefix))
    }
}

/// `$0.name.contains("milk")` → `name CONTAINS "milk"`.
extension PredicateExpressions.CollectionContainsCollection: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .predicate(try converter.comparison(base, .contains, other))
    }
}

/// `test ? a : b` → `TERNARY(test, a, b)`.
extension PredicateExpressions.Conditional: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        .expression(NSExpression(
            forConditional: try converter.predicate(test), trueExpression: try converter.expression(trueBranch),
            falseExpression: try converter.expression(falseBranch)))
    }
}

/// `a + b`, `a - b`, `a * b` → Core Data's arithmetic functions.
extension PredicateExpressions.Arithmetic: ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node {
        let function: String
        switch op {
        case .add: function = "add:to:"
        case .subtract: function = "from:subtract:"
        case .multiply: function = "multiply:by:"
        @unknown default: throw PredicateConverter.Unsupported(description: "the arithmetic operator \(op)")
        }
        return .expression(NSExpression(forFunction: function, arguments: [try converter.expression(lhs), try converter.expression(rhs)]))
    }
}
