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
    }

    /// What the expression holds; one case per supported `ExpressionType`.
    enum Storage {
        case constant(Any?)
        case evaluatedObject
        case variable(String)
        case keyPath(String)
        /// A named function (`add:to:`, `sum:`, `now`…) applied to its arguments.
        case function(String, arguments: [NSExpression])
        /// A literal collection `{a, b, c}`.
        case aggregate([NSExpression])
        case anyKey
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
        super.init()
    }

    /// An expression that always evaluates to `obj` (nil, a string, a number, a date, an array…).
    public convenience init(forConstantValue obj: Any?) {
        self.init(storage: .constant(obj is NSNull ? nil : obj))
    }

    /// An expression that reads the value at `keyPath` (dotted, through relationships) of the
    /// evaluated object.
    public convenience init(forKeyPath keyPath: String) {
        self.init(storage: .keyPath(keyPath))
    }

    /// An expression for the substitution variable `$string`, replaced through
    /// `withSubstitutionVariables(_:)` or the bindings of `evaluate(with:substitutionVariables:)`.
    public convenience init(forVariable string: String) {
        self.init(storage: .variable(string))
    }

    /// A literal collection of expressions, as `{1, 2, 3}` in a format string.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(storage: .aggregate(subexpressions.map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }))
    }

    /// A function such as `"add:to:"`, `"sum:"` or `"now"` applied to `parameters` (expressions).
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(storage: .function(name, arguments: parameters.map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }))
    }

    /// The expression for the object being evaluated: `SELF` in a format string.
    public class func expressionForEvaluatedObject() -> NSExpression { NSExpression(storage: .evaluatedObject) }

    /// The expression that matches any key of the evaluated object.
    public class func expressionForAnyKey() -> NSExpression { NSExpression(storage: .anyKey) }

    /// The kind of the expression.
    public var expressionType: ExpressionType {
        switch storage {
        case .constant: .constantValue
        case .evaluatedObject: .evaluatedObject
        case .variable: .variable
        case .keyPath: .keyPath
        case .function: .function
        case .aggregate: .aggregate
        case .anyKey: .anyKey
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
        guard case .keyPath(let keyPath) = storage else {
            preconditionFailure("\(self) is not a key path expression (\(expressionType)).")
        }
        return keyPath
    }

    /// The name of a variable expression. Stops the program for other kinds, as Apple raises.
    public var variable: String {
        guard case .variable(let name) = storage else {
            preconditionFailure("\(self) is not a variable expression (\(expressionType)).")
        }
        return name
    }

    /// The function name of a function expression, such as `add:to:`. Stops the program for other
    /// kinds, as Apple raises.
    public var function: String {
        guard case .function(let name, _) = storage else {
            preconditionFailure("\(self) is not a function expression (\(expressionType)).")
        }
        return name
    }

    /// The arguments of a function expression; nil for other kinds.
    public var arguments: [NSExpression]? {
        guard case .function(_, let arguments) = storage else { return nil }
        return arguments
    }

    /// The subexpressions of an aggregate expression. Stops the program for other kinds.
    public var collection: Any {
        guard case .aggregate(let items) = storage else {
            preconditionFailure("\(self) is not an aggregate expression (\(expressionType)).")
        }
        return items
    }

    /// The value of the expression for `object`: the constant, the value at the key path, the
    /// result of the function. Variables are read from `context` (Apple's bindings dictionary).
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
        case .constant, .evaluatedObject, .keyPath, .anyKey:
            return self
        }
    }

    // MARK: NSObject

    /// Expressions are immutable: a copy is the expression itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Structural equality: same kind and contents; numbers compare by value, and a constant
    /// collection equals an aggregate of the same constants.
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
        default: return false
        }
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
        }
    }

    /// The expression in format-string syntax, as Apple prints it.
    override open var description: String { PredicateFormatter.format(self) }
}
