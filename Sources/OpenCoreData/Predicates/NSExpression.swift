/// One side of a comparison predicate: a constant, a key path, a variable, the evaluated object,
/// a function or a literal collection, as Foundation's `NSExpression` is on Apple platforms.
///
/// Linux's Foundation declares `NSExpression` with every initializer unavailable, so OpenCoreData
/// provides its own. In files importing both `Foundation` and `OpenCoreData`, expressions such as
/// `NSExpression(forKeyPath: "name")` resolve to this class; in a type position, write
/// `OpenCoreData.NSExpression` (the bare name is ambiguous there).
///
/// ```swift
/// let left = NSExpression(forKeyPath: "count")
/// let right = NSExpression(forConstantValue: 3)
/// left.expressionValue(with: ["count": 5], context: nil)  // 5
/// ```
open class NSExpression: NSObject, NSCopying {
    /// The kinds of expression, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable {
        case constantValue = 0
        case evaluatedObject = 1
        case variable = 2
        case keyPath = 3
        case function = 4
        case unionSet = 5
        case intersectSet = 6
        case minusSet = 7
        case subquery = 13
        case aggregate = 14
        case anyKey = 15
        case block = 19
        case conditional = 20
        /// An `NSFetchRequestExpression`: the result of running a fetch request in a context.
        case fetchRequest = 50
    }

    /// What the expression holds; one case per supported `ExpressionType`.
    package enum Storage {
        case constant(Any?)
        case evaluatedObject
        case variable(String)
        case keyPath(String)
        /// A named function (`add:to:`, `sum:`, `now`…) applied to its arguments.
        case function(String, arguments: [NSExpression])
        /// A literal collection `{a, b, c}`.
        case aggregate([NSExpression])
        case anyKey
        /// A key path applied to another expression's value: `$x.name`, `SUBQUERY(…).@count`.
        case operandKeyPath(NSExpression, String)
        /// `SUBQUERY(collection, $variable, predicate)`: the elements for which the predicate holds.
        case subquery(NSExpression, variable: String, predicate: Foundation.NSPredicate)
        /// `TERNARY(predicate, then, else)`.
        case conditional(Foundation.NSPredicate, NSExpression, NSExpression)
        /// `FUNCTION(target, "selector", arguments…)`: a function registered by selector name.
        case method(NSExpression, String, arguments: [NSExpression])
        /// `UNION`, `INTERSECT`, `MINUS` of two collections (the type says which).
        case setOperation(ExpressionType, NSExpression, NSExpression)
    }

    package let storage: Storage

    init(storage: Storage) {
        self.storage = storage
        super.init()
    }

    /// An expression that always evaluates to `obj` (nil, a string, a number, a date, an array…).
    ///
    /// - Parameter obj: The constant value; `NSNull` is kept as `nil`.
    public convenience init(forConstantValue obj: Any?) {
        self.init(storage: .constant(obj is NSNull ? nil : obj))
    }

    /// An expression that reads the value at `keyPath` (dotted, through relationships) of the
    /// evaluated object.
    ///
    /// - Parameter keyPath: A property name or dotted key path, such as `"author.name"`; it may end
    ///   with a collection operator such as `@count`.
    public convenience init(forKeyPath keyPath: String) {
        self.init(storage: .keyPath(keyPath))
    }

    /// An expression for the property a key path of a managed object class names
    /// (`NSExpression(forKeyPath: \Item.name)` is `NSExpression(forKeyPath: "name")`).
    ///
    /// - Parameter keyPath: A key path to `@NSManaged` or generated properties; the program stops
    ///   for one that reads anything else, as Core Data raises for a key path without a name.
    public convenience init<Root: NSManagedObject, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        guard let name = ManagedKeyPathNames.name(of: keyPath) else {
            preconditionFailure("The key path \(keyPath) does not name managed properties of \(Root.self).")
        }
        self.init(forKeyPath: name)
    }

    /// An expression for the substitution variable `$string`, replaced through
    /// `withSubstitutionVariables(_:)` or the bindings of `evaluate(with:substitutionVariables:)`.
    ///
    /// - Parameter string: The variable's name, without the leading `$`.
    public convenience init(forVariable string: String) {
        self.init(storage: .variable(string))
    }

    /// A literal collection of expressions, as `{1, 2, 3}` in a format string.
    ///
    /// - Parameter subexpressions: The elements, in order: expressions, or plain values that are
    ///   wrapped as constant expressions.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(storage: .aggregate(subexpressions.map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }))
    }

    /// A function such as `"add:to:"`, `"sum:"` or `"now"` applied to `parameters` (expressions).
    ///
    /// - Parameters:
    ///   - name: The function's name as Core Data spells it, colons included.
    ///   - parameters: The function's arguments, in order: expressions, or plain values that are
    ///     wrapped as constant expressions.
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(storage: .function(name, arguments: parameters.map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }))
    }

    /// The elements of `expression` (a collection) for which `predicate` holds, with each element
    /// bound to `$variable` while the predicate is evaluated: `SUBQUERY(books, $b, $b.pages > 100)`.
    ///
    /// The predicate is evaluated on the element, so `$b.pages` and `pages` both read the element's
    /// pages, in memory and in SQL alike.
    ///
    /// - Parameters:
    ///   - expression: The collection to filter, usually a to-many key path.
    ///   - variable: The iterator variable's name, without the leading `$`.
    ///   - predicate: The `NSPredicate` each element is tested with; anything else is taken as a
    ///     predicate that never holds.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: Any) {
        let predicate = predicate as? Foundation.NSPredicate ?? Foundation.NSPredicate(value: false)
        self.init(storage: .subquery(expression, variable: variable, predicate: predicate))
    }

    /// `trueExpression`'s value when `predicate` holds for the evaluated object, else
    /// `falseExpression`'s: `TERNARY(predicate, a, b)` in a format string.
    ///
    /// - Parameters:
    ///   - predicate: The condition, evaluated with the evaluated object.
    ///   - trueExpression: The expression whose value is used when the condition holds.
    ///   - falseExpression: The expression whose value is used otherwise.
    public convenience init(forConditional predicate: Foundation.NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression) {
        self.init(storage: .conditional(predicate, trueExpression, falseExpression))
    }

    /// `FUNCTION(target, "name", arguments…)`: calls the function registered under `name` with
    /// `registerFunction(_:_:)` on the target's value. Linux has no Objective-C runtime to send an
    /// arbitrary selector, so only registered names (and the built-in string ones) evaluate.
    ///
    /// - Parameters:
    ///   - target: The expression whose value the function receives as its target.
    ///   - name: The selector name the function is registered under, colons included.
    ///   - parameters: The remaining arguments, in order (expressions, or plain values wrapped as
    ///     constants), or `nil` for none.
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        let arguments = (parameters ?? []).map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }
        self.init(storage: .method(target, name, arguments: arguments))
    }

    /// The union of two collections: `left UNION right` in a format string.
    ///
    /// - Parameters:
    ///   - left: The expression for the first collection.
    ///   - right: The expression for the second collection.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(storage: .setOperation(.unionSet, left, right))
    }

    /// The elements of `left` that are also in `right`: `left INTERSECT right`.
    ///
    /// - Parameters:
    ///   - left: The expression for the collection whose elements are kept.
    ///   - right: The expression for the collection they must also be in.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(storage: .setOperation(.intersectSet, left, right))
    }

    /// The elements of `left` that are not in `right`: `left MINUS right`.
    ///
    /// - Parameters:
    ///   - left: The expression for the collection whose elements are kept.
    ///   - right: The expression for the collection whose elements are removed.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(storage: .setOperation(.minusSet, left, right))
    }

    /// The expression for the object being evaluated: `SELF` in a format string.
    ///
    /// - Returns: A new expression whose value is the evaluated object itself.
    public class func expressionForEvaluatedObject() -> NSExpression { NSExpression(storage: .evaluatedObject) }

    /// The expression that matches any key of the evaluated object.
    ///
    /// - Returns: A new expression of type `.anyKey`.
    public class func expressionForAnyKey() -> NSExpression { NSExpression(storage: .anyKey) }

    /// The kind of the expression.
    open var expressionType: ExpressionType {
        switch storage {
        case .constant: .constantValue
        case .evaluatedObject: .evaluatedObject
        case .variable: .variable
        case .keyPath: .keyPath
        case .function: .function
        case .aggregate: .aggregate
        case .anyKey: .anyKey
        case .operandKeyPath: .keyPath
        case .subquery: .subquery
        case .conditional: .conditional
        case .method: .function
        case .setOperation(let type, _, _): type
        }
    }

    /// The constant of a constant expression; the subexpressions of an aggregate one. Stops the
    /// program for other kinds, as Apple raises.
    public var constantValue: Any? {
        switch storage {
        case .constant(let value): return value
        case .aggregate(let items): return items
        default: preconditionFailure("\(self) is not a constant value expression (\(expressionType)).")
        }
    }

    /// The key path of a key path expression. Stops the program for other kinds, as Apple raises.
    public var keyPath: String {
        switch storage {
        case .keyPath(let keyPath), .operandKeyPath(_, let keyPath): return keyPath
        default: preconditionFailure("\(self) is not a key path expression (\(expressionType)).")
        }
    }

    /// The expression a key path or `FUNCTION` applies to: the evaluated object for a plain key
    /// path, `$x` in `$x.name`. Stops the program for other kinds, as Apple raises.
    public var operand: NSExpression {
        switch storage {
        case .keyPath: return .expressionForEvaluatedObject()
        case .operandKeyPath(let operand, _), .method(let operand, _, _): return operand
        default: preconditionFailure("\(self) has no operand (\(expressionType)).")
        }
    }

    /// The name of a variable expression, or the iterator variable of a subquery. Stops the
    /// program for other kinds, as Apple raises.
    public var variable: String {
        switch storage {
        case .variable(let name), .subquery(_, let name, _): return name
        default: preconditionFailure("\(self) is not a variable expression (\(expressionType)).")
        }
    }

    /// The function name of a function expression, such as `add:to:`, or the selector of a
    /// `FUNCTION`. Stops the program for other kinds, as Apple raises.
    public var function: String {
        switch storage {
        case .function(let name, _), .method(_, let name, _): return name
        default: preconditionFailure("\(self) is not a function expression (\(expressionType)).")
        }
    }

    /// The arguments of a function expression; nil for other kinds.
    public var arguments: [NSExpression]? {
        switch storage {
        case .function(_, let arguments), .method(_, _, let arguments): return arguments
        default: return nil
        }
    }

    /// The subexpressions of an aggregate expression, or the collection expression of a subquery.
    /// Stops the program for other kinds.
    public var collection: Any {
        switch storage {
        case .aggregate(let items): return items
        case .subquery(let collection, _, _): return collection
        default: preconditionFailure("\(self) is not an aggregate or subquery expression (\(expressionType)).")
        }
    }

    /// The predicate of a subquery or conditional expression. Stops the program for other kinds.
    public var predicate: Foundation.NSPredicate {
        switch storage {
        case .subquery(_, _, let predicate), .conditional(let predicate, _, _): return predicate
        default: preconditionFailure("\(self) has no predicate (\(expressionType)).")
        }
    }

    /// The value of a conditional expression when its predicate holds.
    public var trueExpression: NSExpression {
        guard case .conditional(_, let expression, _) = storage else {
            preconditionFailure("\(self) is not a conditional expression (\(expressionType)).")
        }
        return expression
    }

    /// The value of a conditional expression when its predicate does not hold.
    public var falseExpression: NSExpression {
        guard case .conditional(_, _, let expression) = storage else {
            preconditionFailure("\(self) is not a conditional expression (\(expressionType)).")
        }
        return expression
    }

    /// The left collection of a union, intersection or difference.
    public var leftExpression: NSExpression {
        guard case .setOperation(_, let left, _) = storage else {
            preconditionFailure("\(self) is not a set expression (\(expressionType)).")
        }
        return left
    }

    /// The right collection of a union, intersection or difference.
    public var rightExpression: NSExpression {
        guard case .setOperation(_, _, let right) = storage else {
            preconditionFailure("\(self) is not a set expression (\(expressionType)).")
        }
        return right
    }

    /// The value of the expression for `object`: the constant, the value at the key path, the
    /// result of the function. Variables are read from `context` (Apple's bindings dictionary).
    ///
    /// - Parameters:
    ///   - object: The evaluated object that key paths and `SELF` refer to, or `nil`.
    ///   - context: Values for `$variables`, keyed by name without the `$`; entries whose key is
    ///     not a string are ignored. `nil` when there are no variables.
    /// - Returns: The expression's value, or `nil` when it has none (for example a missing key or
    ///   an unregistered function).
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var bindings: [String: Any]?
        if let context {
            bindings = [:]
            for case let (key as String, value) in context { bindings![key] = value }
        }
        return PredicateEvaluator.value(of: self, object: object, bindings: bindings)
    }

    /// A copy with every `$variable` replaced by its value in `variables`; variables not in the
    /// dictionary stay.
    func substituting(_ variables: [String: Any]) -> NSExpression {
        switch storage {
        case .variable(let name):
            guard let value = variables[name] else { return self }
            return value as? NSExpression ?? NSExpression(forConstantValue: value)
        case .function(let name, let arguments):
            return NSExpression(storage: .function(name, arguments: arguments.map { $0.substituting(variables) }))
        case .aggregate(let items):
            return NSExpression(storage: .aggregate(items.map { $0.substituting(variables) }))
        case .operandKeyPath(let operand, let path):
            let substituted = operand.substituting(variables)
            // A key path of a value given for a variable (`$FETCHED_PROPERTY.userInfo.year`) is a
            // value too, read now: a store can compare with it, not follow it.
            if case .variable = operand.storage, case .constant(let value) = substituted.storage {
                return NSExpression(forConstantValue: KeyValueReader.value(atKeyPath: path, of: value))
            }
            return NSExpression(storage: .operandKeyPath(substituted, path))
        case .subquery(let collection, let variable, let predicate):
            // The iterator variable is bound by the subquery itself, never substituted.
            var inner = variables
            inner[variable] = nil
            return NSExpression(
                storage: .subquery(collection.substituting(variables), variable: variable, predicate: PredicateSubstitution.substitute(predicate, inner)))
        case .conditional(let predicate, let a, let b):
            return NSExpression(storage: .conditional(PredicateSubstitution.substitute(predicate, variables), a.substituting(variables), b.substituting(variables)))
        case .method(let target, let name, let arguments):
            let method = NSExpression(storage: .method(target.substituting(variables), name, arguments: arguments.map { $0.substituting(variables) }))
            return method.foldingKeyPathVariable()
        case .setOperation(let type, let a, let b):
            return NSExpression(storage: .setOperation(type, a.substituting(variables), b.substituting(variables)))
        case .constant, .evaluatedObject, .keyPath, .anyKey:
            return self
        }
    }

    // MARK: NSObject

    /// Expressions are immutable: a copy is the expression itself.
    ///
    /// - Parameter zone: Ignored; kept for `NSCopying`.
    /// - Returns: This same expression.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Structural equality: same kind and contents; numbers compare by value, and a constant
    /// collection equals an aggregate of the same constants.
    ///
    /// - Parameter object: The value to compare with.
    /// - Returns: `true` when `object` is an `NSExpression` of the same kind with equal contents.
    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSExpression else { return false }
        if other === self { return true }
        // `IN %@` with an array prints as `IN {…}`, which parses to an aggregate: the two are equal.
        if let x = constantElements, let y = other.constantElements {
            return x.count == y.count && zip(x, y).allSatisfy { ValueComparison.isEqual($0, $1) }
        }
        switch (storage, other.storage) {
        case (.constant(let a), .constant(let b)): return ValueComparison.isEqual(a, b)
        case (.evaluatedObject, .evaluatedObject), (.anyKey, .anyKey): return true
        case (.variable(let a), .variable(let b)), (.keyPath(let a), .keyPath(let b)): return a == b
        case (.function(let a, let x), .function(let b, let y)): return a == b && x == y
        case (.aggregate(let x), .aggregate(let y)): return x == y
        case (.operandKeyPath(let x, let a), .operandKeyPath(let y, let b)): return a == b && x.isEqual(y)
        case (.subquery(let x, let a, let p), .subquery(let y, let b, let q)):
            return a == b && x.isEqual(y) && PredicateEquality.isEqual(p, q)
        case (.conditional(let p, let a, let b), .conditional(let q, let c, let d)):
            return PredicateEquality.isEqual(p, q) && a.isEqual(c) && b.isEqual(d)
        case (.method(let x, let a, let u), .method(let y, let b, let v)): return a == b && x.isEqual(y) && u == v
        case (.setOperation(let s, let a, let b), .setOperation(let t, let c, let d)): return s == t && a.isEqual(c) && b.isEqual(d)
        default: return false
        }
    }

    /// The constant of a constant expression; nil for other kinds (where `constantValue` stops).
    package var constantIfAny: Any? {
        if case .constant(let value) = storage { return value }
        return nil
    }

    /// The values of a constant collection or of an aggregate of constants; nil otherwise.
    private var constantElements: [Any?]? {
        switch storage {
        case .constant(let value): return value.flatMap(ValueComparison.collectionElements)
        case .aggregate(let items):
            var values: [Any?] = []
            for item in items {
                guard case .constant(let value) = item.storage else { return nil }
                values.append(value)
            }
            return values
        default: return nil
        }
    }

    /// A hash consistent with `isEqual`.
    override open var hash: Int {
        if let elements = constantElements { return elements.count &+ 5 }
        switch storage {
        case .constant(let value): return ValueComparison.hashValue(value)
        case .evaluatedObject: return 1
        case .anyKey: return 2
        case .variable(let name): return name.hashValue &+ 3
        case .keyPath(let path): return path.hashValue
        case .function(let name, let arguments): return name.hashValue ^ arguments.count
        case .aggregate(let items): return items.count &+ 5
        case .operandKeyPath(let operand, let path): return path.hashValue ^ operand.hash
        case .subquery(let collection, let variable, _): return variable.hashValue ^ collection.hash
        case .conditional(_, let a, let b): return a.hash &* 31 &+ b.hash
        case .method(_, let name, let arguments): return name.hashValue ^ arguments.count &+ 1
        case .setOperation(let type, let a, let b): return Int(type.rawValue) &+ a.hash &* 31 &+ b.hash
        }
    }

    /// The expression in format-string syntax, as Apple prints it.
    override open var description: String { PredicateFormatter.format(self) }
}

extension NSExpression {
    /// The selector of a key path read from a value known only at evaluation (`$a.$b`).
    static let valueForKeyPathSelector = "valueForKeyPath:"

    /// `target.$b` once `$b` has its value: a key path as a store reads one when the value is a
    /// key and the target a key path or `SELF`, the value read now when the target is a value.
    fileprivate func foldingKeyPathVariable() -> NSExpression {
        guard case .method(let target, Self.valueForKeyPathSelector, let arguments) = storage, arguments.count == 1,
            case .constant(let value) = arguments[0].storage, let path = ValueComparison.normalize(value) as? String,
            !path.isEmpty, !path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else { return self }
        switch target.storage {
        case .evaluatedObject: return NSExpression(forKeyPath: path)
        case .keyPath(let base): return NSExpression(forKeyPath: base + "." + path)
        case .constant(let base): return NSExpression(forConstantValue: KeyValueReader.value(atKeyPath: path, of: base))
        default: return NSExpression(storage: .operandKeyPath(target, path))
        }
    }
}
