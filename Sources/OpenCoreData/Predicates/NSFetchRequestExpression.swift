/// An expression whose value is the result of a fetch request run in a context: what a mapping
/// model's source expression is (`$manager.sourceContext` running the manager's fetch of the
/// source entity).
open class NSFetchRequestExpression: NSExpression {
    /// The expression whose value is the `NSFetchRequest` to run.
    public let requestExpression: NSExpression
    /// The expression whose value is the `NSManagedObjectContext` to run it in.
    public let contextExpression: NSExpression
    /// Whether the value is the count of the results rather than the results.
    public let isCountOnlyRequest: Bool

    init(request: NSExpression, context: NSExpression, countOnly: Bool) {
        requestExpression = request
        contextExpression = context
        isCountOnlyRequest = countOnly
        super.init(storage: .method(context, countOnly ? "countForFetchRequest:" : "executeFetchRequest:", arguments: [request]))
    }

    /// An expression that runs the request `fetch` evaluates to in the context `context`
    /// evaluates to. Evaluate it on the context's queue, as any use of the context.
    ///
    /// - Parameters:
    ///   - fetch: An expression whose value is an `NSFetchRequest`.
    ///   - context: An expression whose value is an `NSManagedObjectContext`.
    ///   - countOnly: Whether the value is the results' count rather than the results.
    /// - Returns: The expression.
    open class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly: Bool) -> NSExpression {
        NSFetchRequestExpression(request: fetch, context: context, countOnly: countOnly)
    }

    override open var expressionType: ExpressionType { .fetchRequest }
}

extension NSManagedObjectContext: ExpressionMessageReceiver {
    /// `executeFetchRequest:` and `countForFetchRequest:`, the messages a fetch request
    /// expression sends; a failed fetch gives nil, as the Objective-C message with a nil error
    /// pointer does.
    func answer(_ selector: String, _ arguments: [Any?]) -> Any?? {
        guard selector == "executeFetchRequest:" || selector == "countForFetchRequest:" else { return nil }
        let counting = selector == "countForFetchRequest:"
        func run<Result>(_ request: NSFetchRequest<Result>) -> Any? {
            counting ? (try? count(for: request)).map { NSNumber(value: $0) } : try? fetch(request)
        }
        // Swift's generic classes do not convert into one another: take the request as made.
        switch arguments.first {
        case let request as NSFetchRequest<NSFetchRequestResult>: return .some(run(request))
        case let request as NSFetchRequest<NSManagedObject>: return .some(run(request))
        default: return .some(nil)
        }
    }
}
