import Foundation

/// Predicates and expressions archived as Foundation archives them, with the classes and keys a
/// store's model cache holds (`NSComparisonPredicate` with an `NSPredicateOperator`,
/// `NSKeyPathExpression` with `NSOperand`, `NSSelectorName` and a `NSKeyPathSpecifierExpression`
/// argument, …; docs/compatibility.md). `ArchivedExpressionReader` reads them back.
extension KeyedArchiveWriter {
    private static let expressionClass = ["NSExpression", "NSObject"]

    /// The archived expression, or nil for a form archives of a model cannot hold here
    /// (subqueries, conditionals, set operations, `ANYKEY`).
    mutating func expression(_ expression: NSExpression) -> Int? {
        switch expression.storage {
        case .constant(let value):
            return instance(
                ["NSConstantValueExpression"] + Self.expressionClass,
                [("NSExpressionType", .integer(0)), ("NSConstantValue", .reference(self.value(value)))])
        case .evaluatedObject:
            return selfExpression()
        case .variable(let name):
            return instance(
                ["NSVariableExpression"] + Self.expressionClass, [("NSExpressionType", .integer(2)), ("NSVariable", .reference(string(name)))])
        case .keyPath(let path):
            let target = selfExpression()
            return keyPath(path, on: target, type: 3)
        case .operandKeyPath(let base, let path):
            guard let target = self.expression(base) else { return nil }
            return keyPath(path, on: target, type: 4)
        case .function(let name, let arguments):
            // Foundation's built-in functions are sent to its utility class, a constant operand.
            let target = instance(
                ["NSConstantValueExpression"] + Self.expressionClass,
                [("NSExpressionType", .integer(0)), ("NSConstantValueClassName", .reference(string("_NSPredicateUtilities")))])
            return function(name, on: target, arguments: arguments)
        case .method(let base, let name, let arguments):
            guard let target = self.expression(base) else { return nil }
            return function(name, on: target, arguments: arguments)
        case .aggregate(let items):
            var uids: [Int] = []
            for item in items {
                guard let uid = self.expression(item) else { return nil }
                uids.append(uid)
            }
            return instance(
                ["NSAggregateExpression"] + Self.expressionClass,
                [("NSExpressionType", .integer(14)), ("NSCollection", .reference(array(uids)))])
        case .anyKey, .subquery, .conditional, .setOperation:
            return nil
        }
    }

    /// The archived predicate, or nil for one holding a form `expression(_:)` cannot archive or a
    /// block predicate.
    mutating func predicate(_ predicate: Foundation.NSPredicate) -> Int? {
        switch predicate {
        case let comparison as NSComparisonPredicate:
            guard comparison.predicateOperatorType != .customSelector, let left = expression(comparison.leftExpression), let right = expression(comparison.rightExpression) else { return nil }
            let predicateOperator = predicateOperator(comparison)
            return instance(
                ["NSComparisonPredicate", "NSPredicate", "NSObject"],
                [("NSLeftExpression", .reference(left)), ("NSRightExpression", .reference(right)), ("NSPredicateOperator", .reference(predicateOperator))])
        case let compound as NSCompoundPredicate:
            var uids: [Int] = []
            for subpredicate in compound.subpredicates {
                guard let uid = self.predicate(subpredicate) else { return nil }
                uids.append(uid)
            }
            return instance(
                ["NSCompoundPredicate", "NSPredicate", "NSObject"],
                [("NSCompoundPredicateType", .integer(Int(compound.compoundPredicateType.rawValue))), ("NSSubpredicates", .reference(array(uids)))])
        default:
            switch PredicateKind(predicate) {
            case .truePredicate: return instance(["NSTruePredicate", "NSPredicate", "NSObject"], [])
            case .falsePredicate: return instance(["NSFalsePredicate", "NSPredicate", "NSObject"], [])
            case .block, .other: return nil
            }
        }
    }

    private mutating func selfExpression() -> Int {
        instance(["NSSelfExpression"] + Self.expressionClass, [("NSExpressionType", .integer(1))])
    }

    /// A key path on `target`: `valueForKey:` for one key, `valueForKeyPath:` for a path, as
    /// Foundation archives them.
    private mutating func keyPath(_ path: String, on target: Int, type: Int) -> Int {
        let specifier = instance(
            ["NSKeyPathSpecifierExpression"] + Self.expressionClass, [("NSExpressionType", .integer(10)), ("NSKeyPath", .reference(string(path)))])
        let selector = type == 3 && !path.contains(".") ? "valueForKey:" : "valueForKeyPath:"
        return instance(
            ["NSKeyPathExpression", "NSFunctionExpression"] + Self.expressionClass,
            [
                ("NSExpressionType", .integer(type)), ("NSOperand", .reference(target)), ("NSSelectorName", .reference(string(selector))),
                ("NSArguments", .reference(array([specifier], ["NSMutableArray", "NSArray", "NSObject"]))),
            ])
    }

    private mutating func function(_ name: String, on target: Int, arguments: [NSExpression]) -> Int? {
        var uids: [Int] = []
        for argument in arguments {
            guard let uid = expression(argument) else { return nil }
            uids.append(uid)
        }
        return instance(
            ["NSFunctionExpression"] + Self.expressionClass,
            [
                ("NSExpressionType", .integer(4)), ("NSOperand", .reference(target)), ("NSSelectorName", .reference(string(name))),
                ("NSArguments", .reference(array(uids))),
            ])
    }

    /// The operator object: its class by kind, its type, modifier and options.
    private mutating func predicateOperator(_ comparison: NSComparisonPredicate) -> Int {
        let type = comparison.predicateOperatorType
        let modifier = ("NSModifier", Field.integer(Int(comparison.comparisonPredicateModifier.rawValue)))
        let options = Int(comparison.options.rawValue)
        let operatorType = ("NSOperatorType", Field.integer(Int(type.rawValue)))
        switch type {
        case .equalTo, .notEqualTo:
            return instance(
                ["NSEqualityPredicateOperator", "NSPredicateOperator", "NSObject"],
                [operatorType, modifier, ("NSOptions", .integer(options)), ("NSNegate", .bool(type == .notEqualTo))])
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return instance(
                ["NSComparisonPredicateOperator", "NSPredicateOperator", "NSObject"],
                [operatorType, modifier, ("NSOptions", .integer(options)), ("NSVariant", .integer(Int(type.rawValue)))])
        case .in, .contains:
            return instance(["NSInPredicateOperator", "NSPredicateOperator", "NSObject"], [operatorType, modifier, ("NSFlags", .integer(options))])
        case .like, .matches, .beginsWith, .endsWith:
            let name = [.like: "NSLikePredicateOperator", .matches: "NSMatchingPredicateOperator", .beginsWith: "NSBeginsWithPredicateOperator"][type]
                ?? "NSEndsWithPredicateOperator"
            return instance([name, "NSStringPredicateOperator", "NSPredicateOperator", "NSObject"], [operatorType, modifier, ("NSFlags", .integer(options))])
        case .between, .customSelector:
            // (A custom selector never gets here: `predicate(_:)` refuses it.)
            return instance(["NSBetweenPredicateOperator", "NSPredicateOperator", "NSObject"], [operatorType, modifier])
        }
    }
}
