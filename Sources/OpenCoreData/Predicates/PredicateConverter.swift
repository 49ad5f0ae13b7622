import Foundation

/// Turns the expression tree of a Swift `Predicate` (`#Predicate { $0.done == false }`) into the
/// NSPredicate that says the same, so that a store compiles it to SQL like its format-string twin.
/// Each node type it knows conforms to `ConvertiblePredicateExpression`
/// (`PredicateConverter+Expressions.swift`); any other node makes the conversion fail with the
/// node's type as the reason.
struct PredicateConverter {
    /// What a variable of the tree stands for.
    enum Binding {
        /// The evaluated object: `SELF`.
        case evaluatedObject
        /// The value of another expression: the unwrapped optional of `?.` or `flatMap`.
        case expression(NSExpression)
        /// The iteration variable of a `SUBQUERY`.
        case subqueryVariable(String)
    }

    /// A node converted: a Boolean condition, a value, or `a ?? b` (kept apart, because only a
    /// comparison or a test knows how to say it without `??`).
    enum Node {
        case predicate(Foundation.NSPredicate)
        /// A condition on an optional's unwrapped value (`title?.contains("a")`), false for nil.
        case optionalPredicate(Foundation.NSPredicate, unwrapped: NSExpression)
        case expression(NSExpression)
        case coalescing(NSExpression, default: NSExpression)
    }

    /// Why a predicate has no NSPredicate twin.
    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    private var bindings: [PredicateExpressions.VariableID: Binding] = [:]
    private var subqueryCount = 0
    /// The property names a key path reads (`\Item.list` → `"list"`), nil for one that reads
    /// anything else: `@NSManaged` properties by default, a model's persisted ones for OpenSwiftData.
    let propertyName: (AnyKeyPath) -> String?
    /// A captured value as an NSExpression constant takes it (a model object as its managed object).
    let constant: (Any) -> Any?

    init(
        root: PredicateExpressions.VariableID, propertyName: @escaping (AnyKeyPath) -> String? = ManagedKeyPathNames.name(of:),
        constant: @escaping (Any) -> Any? = { $0 }
    ) {
        bindings[root] = .evaluatedObject
        self.propertyName = propertyName
        self.constant = constant
    }

    // MARK: Nodes

    mutating func node(_ expression: Any) throws -> Node {
        guard let convertible = expression as? any ConvertiblePredicateExpression else {
            throw Unsupported(description: "\(type(of: expression)) has no NSPredicate equivalent")
        }
        return try convertible.converted(&self)
    }

    /// `expression` as a condition: a Boolean value is compared with `YES`.
    mutating func predicate(_ expression: Any) throws -> Foundation.NSPredicate {
        switch try node(expression) {
        case .predicate(let predicate), .optionalPredicate(let predicate, _): return predicate
        case .expression(let value): return Self.isTrue(value)
        case .coalescing(let value, let fallback):
            // `flag ?? true`: a nil flag passes; `flag ?? false`: only a true one does.
            guard case .constant(let constant) = fallback.storage, let passes = constant as? Bool else {
                throw Unsupported(description: "'??' with a default that is not a constant Boolean")
            }
            if !passes { return Self.isTrue(value) }
            return CompoundPredicate(type: .or, subpredicates: [Self.isNil(value), Self.isTrue(value)])
        }
    }

    /// `expression` as a value.
    mutating func expression(_ expression: Any) throws -> NSExpression {
        switch try node(expression) {
        case .expression(let value): return value
        case .predicate, .optionalPredicate:
            throw Unsupported(description: "a condition used as a value")
        case .coalescing:
            throw Unsupported(description: "'??' outside a comparison or a condition")
        }
    }

    /// `lhs op rhs`; a `??` on either side becomes the comparison with and without its default.
    /// `options` fold the strings compared (`[c]`, `[d]`).
    mutating func comparison(
        _ lhs: Any, _ type: NSComparisonPredicate.Operator, _ rhs: Any, options: NSComparisonPredicate.Options = []
    ) throws -> Foundation.NSPredicate {
        let compare = { (a: NSExpression, b: NSExpression) -> Foundation.NSPredicate in
            NSComparisonPredicate(leftExpression: a, rightExpression: b, modifier: .direct, type: type, options: options)
        }
        let left = try node(lhs)
        let right = try node(rhs)
        switch (left, right) {
        case (.expression(let a), .expression(let b)):
            return compare(a, b)
        case (.predicate, .expression(let b)), (.optionalPredicate, .expression(let b)):
            return try conditionCompared(left, type, with: b)
        case (.expression(let a), .predicate), (.expression(let a), .optionalPredicate):
            return try conditionCompared(right, type, with: a)
        case (.coalescing(let a, let fallback), .expression(let b)) where Self.isConstant(b):
            return Self.coalesced(a, fallback: fallback) { compare($0, b) }
        case (.expression(let a), .coalescing(let b, let fallback)) where Self.isConstant(a):
            return Self.coalesced(b, fallback: fallback) { compare(a, $0) }
        default:
            throw Unsupported(description: "a comparison of conditions, or of '??' with something else than a constant")
        }
    }

    /// `condition == flag` and `condition != flag` for a constant flag.
    private func conditionCompared(_ condition: Node, _ type: NSComparisonPredicate.Operator, with other: NSExpression) throws -> Foundation.NSPredicate {
        guard type == .equalTo || type == .notEqualTo, case .constant(let constant) = other.storage, let flag = constant as? Bool else {
            throw Unsupported(description: "a condition compared with something else than a constant Boolean")
        }
        let wanted = (type == .equalTo) == flag
        switch condition {
        case .predicate(let predicate):
            return wanted ? predicate : CompoundPredicate(type: .not, subpredicates: [predicate])
        case .optionalPredicate(let predicate, let unwrapped):
            // Swift compares nil with neither true nor false: `nil == false` is false.
            return Self.optionalCondition(predicate, unwrapped, equals: wanted, orNil: type == .notEqualTo)
        default:
            throw Unsupported(description: "a comparison of conditions")
        }
    }

    /// Where `unwrapped` is not nil, `predicate` equals `equals`; where it is nil, `orNil`.
    static func optionalCondition(
        _ predicate: Foundation.NSPredicate, _ unwrapped: NSExpression, equals: Bool, orNil: Bool
    ) -> Foundation.NSPredicate {
        let present = NSComparisonPredicate(
            leftExpression: unwrapped, rightExpression: NSExpression(forConstantValue: nil), modifier: .direct, type: .notEqualTo)
        let test = equals ? predicate : CompoundPredicate(type: .not, subpredicates: [predicate])
        let whenPresent = CompoundPredicate(type: .and, subpredicates: [present, test])
        return orNil ? CompoundPredicate(type: .or, subpredicates: [isNil(unwrapped), whenPresent]) : whenPresent
    }

    /// The constant Boolean `expression` is.
    mutating func constantBool(_ expression: Any) throws -> Bool {
        guard case .constant(let constant) = try self.expression(expression).storage, let flag = constant as? Bool else {
            throw Unsupported(description: "'??' with a default that is not a constant Boolean")
        }
        return flag
    }

    private static func isConstant(_ expression: NSExpression) -> Bool {
        if case .constant = expression.storage { return true }
        return false
    }

    /// `compare(value ?? fallback)`: `compare(value)` when the fallback fails the comparison,
    /// else also every object whose value is nil. The fallback is a constant here, so which it
    /// is is decided now.
    private static func coalesced(
        _ value: NSExpression, fallback: NSExpression, _ compare: (NSExpression) -> Foundation.NSPredicate
    ) -> Foundation.NSPredicate {
        let withValue = compare(value)
        guard compare(fallback).evaluate(with: nil) else { return withValue }
        return CompoundPredicate(type: .or, subpredicates: [isNil(value), withValue])
    }

    // MARK: Variables

    func binding(of variable: PredicateExpressions.VariableID) throws -> Binding {
        guard let binding = bindings[variable] else { throw Unsupported(description: "a variable bound outside the predicate") }
        return binding
    }

    /// Converts `body` with `variable` standing for `binding`.
    mutating func with<T>(_ variable: PredicateExpressions.VariableID, as binding: Binding, _ body: (inout PredicateConverter) throws -> T) rethrows -> T {
        bindings[variable] = binding
        defer { bindings[variable] = nil }
        return try body(&self)
    }

    /// A fresh name for a `SUBQUERY` variable.
    mutating func subqueryVariable() -> String {
        subqueryCount += 1
        return "v\(subqueryCount)"
    }

    /// `SUBQUERY(sequence, $v, test).@count op 0`, with `variable` standing for `$v` in `test`
    /// (negated: the elements that fail it).
    mutating func subqueryCount(
        of sequence: Any, where variable: PredicateExpressions.VariableID, _ test: Any, negated: Bool, _ type: NSComparisonPredicate.Operator
    ) throws -> Foundation.NSPredicate {
        let collection = try expression(sequence)
        let name = subqueryVariable()
        let inner = try with(variable, as: .subqueryVariable(name)) { try $0.predicate(test) }
        let subquery = NSExpression(
            forSubquery: collection, usingIteratorVariable: name,
            predicate: negated ? CompoundPredicate(type: .not, subpredicates: [inner]) : inner)
        return NSComparisonPredicate(
            leftExpression: Self.keyPath("@count", of: subquery), rightExpression: NSExpression(forConstantValue: 0),
            modifier: .direct, type: type)
    }

    // MARK: Building blocks

    /// `expression.key`: a key path prefixed by another's (`owner.name`, `$v1.name`).
    static func keyPath(_ key: String, of base: NSExpression) -> NSExpression {
        switch base.storage {
        case .evaluatedObject: return NSExpression(forKeyPath: key)
        case .keyPath(let path): return NSExpression(forKeyPath: path + "." + key)
        default: return NSExpression(storage: .operandKeyPath(base, key))
        }
    }

    static func isTrue(_ value: NSExpression) -> Foundation.NSPredicate {
        NSComparisonPredicate(leftExpression: value, rightExpression: NSExpression(forConstantValue: true), modifier: .direct, type: .equalTo)
    }

    static func isNil(_ value: NSExpression) -> Foundation.NSPredicate {
        NSComparisonPredicate(leftExpression: value, rightExpression: NSExpression(forConstantValue: nil), modifier: .direct, type: .equalTo)
    }
}

/// A node of a `Predicate`'s tree that has an NSPredicate or NSExpression equivalent.
protocol ConvertiblePredicateExpression {
    func converted(_ converter: inout PredicateConverter) throws -> PredicateConverter.Node
}
