/// A value a dictionary fetch computes rather than reads from one attribute: an aggregate such as
/// `sum:` of a key path, or the object ID (`expressionForEvaluatedObject()`), returned under
/// `name`. Add it to `propertiesToFetch`; never to an entity's properties.
///
/// ```swift
/// let total = NSExpressionDescription()
/// total.name = "total"
/// total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
/// total.expressionResultType = .integer64AttributeType
/// ```
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: see NSPropertyDescription.

    /// The expression whose value the fetch returns.
    open var expression: NSExpression?
    /// The type of the value the expression returns, which decides how the result is handed out
    /// (`NSNumber` of an integer or a double, `Date`, `String`, `NSManagedObjectID`…).
    open var expressionResultType: NSAttributeType = .undefinedAttributeType
    /// `expressionResultType` in the iOS 15 spelling: `description.resultType = .integer64`.
    public var resultType: NSAttributeDescription.AttributeType {
        get { NSAttributeDescription.AttributeType(rawValue: expressionResultType) }
        set { expressionResultType = newValue.rawValue }
    }

    /// Creates a description with no name, no expression and an undefined result type; set all
    /// three before adding it to `propertiesToFetch`.
    override public init() { super.init() }

    override open var description: String {
        "(NSExpressionDescription) \(name), expression \(expression.map { "\($0)" } ?? "nil"), type \(expressionResultType)"
    }
}
