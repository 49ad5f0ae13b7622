/// Builds `NSExpression`s from their keyed archives, as a compiled mapping model holds them: the
/// classes and keys Foundation writes (`NSKeyPathExpression` with `NSOperand`, `NSSelectorName`
/// and a `NSKeyPathSpecifierExpression` argument, `NSFunctionExpression`, …). An expression of a
/// class this reader does not know makes the whole archive unreadable rather than silently
/// different.
struct ArchivedExpressionReader {
    struct Failure: Error {
        let message: String
    }

    let archive: KeyedArchive
    /// The expressions and predicates this reader may still build: shared objects are built
    /// each time they appear, so an archive listing one twice at each level is exponential.
    /// A model's or mapping model's expressions number in the hundreds.
    private let budget = Budget()

    private final class Budget {
        var remaining = 100_000
    }

    private func spend() throws(Failure) {
        guard budget.remaining > 0 else { throw Failure(message: "the archive builds too many expressions") }
        budget.remaining -= 1
    }

    func expression(_ uid: Int, depth: Int = 0) throws(Failure) -> NSExpression {
        guard depth < KeyedArchiveReader.maximumDepth else { throw Failure(message: "an expression nests too deeply") }
        try spend()
        guard let instance = archive.instance(uid) else { throw Failure(message: "an expression is damaged") }
        switch instance.className {
        case "NSConstantValueExpression":
            let value = archive.reference(instance, "NSConstantValue").flatMap { KeyedArchiveReader.value(uid: $0, in: archive) }
            return NSExpression(forConstantValue: value)
        case "NSVariableExpression":
            guard let name = archive.string(instance, "NSVariable") else { throw Failure(message: "a variable expression has no name") }
            return NSExpression(forVariable: name)
        case "NSSelfExpression":
            return .expressionForEvaluatedObject()
        case "NSKeyPathSpecifierExpression":
            guard let path = archive.string(instance, "NSKeyPath") else { throw Failure(message: "a key path expression has no key path") }
            return NSExpression(forKeyPath: path)
        case "NSKeyPathExpression", "NSFunctionExpression":
            return try function(instance, depth: depth)
        case "NSAggregateExpression":
            guard let collection = archive.reference(instance, "NSCollection"), let items = archive.elements(collection) else {
                throw Failure(message: "an aggregate expression is damaged")
            }
            var expressions: [NSExpression] = []
            for item in items { expressions.append(try expression(item, depth: depth + 1)) }
            return NSExpression(forAggregate: expressions)
        case "NSFetchRequestExpression":
            guard let request = archive.reference(instance, "NSFRExpression"), let context = archive.reference(instance, "NSMOCExpression") else {
                throw Failure(message: "a fetch request expression is damaged")
            }
            return NSFetchRequestExpression.expression(
                forFetch: try expression(request, depth: depth + 1), context: try expression(context, depth: depth + 1),
                countOnly: archive.bool(instance, "NSCountOnlyFlag") ?? false)
        case let other:
            throw Failure(message: "an expression of class \(other) is not supported")
        }
    }

    /// A key path or function expression: an operand, a selector and arguments. `valueForKeyPath:`
    /// with one key path argument is a key path (on the evaluated object or on the operand); a
    /// constant operand is the class Foundation's built-in functions are sent to.
    private func function(_ instance: KeyedArchive.Instance, depth: Int) throws(Failure) -> NSExpression {
        guard let selector = archive.string(instance, "NSSelectorName") else { throw Failure(message: "a function expression has no selector") }
        var arguments: [NSExpression] = []
        if let list = archive.reference(instance, "NSArguments") {
            guard let items = archive.elements(list) else { throw Failure(message: "the arguments of \(selector) are damaged") }
            for item in items { arguments.append(try expression(item, depth: depth + 1)) }
        }
        let operand = try archive.reference(instance, "NSOperand").map { uid throws(Failure) in try expression(uid, depth: depth + 1) }
        // `valueForKey:` is how Foundation archives a one-key path on the evaluated object.
        if selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1, arguments[0].expressionType == .keyPath {
            let path = arguments[0].keyPath
            guard let operand, operand.expressionType != .evaluatedObject else { return NSExpression(forKeyPath: path) }
            return NSExpression(storage: .operandKeyPath(operand, path))
        }
        guard let operand, operand.expressionType != .constantValue else {
            return NSExpression(forFunction: selector, arguments: arguments)
        }
        return NSExpression(forFunction: operand, selectorName: selector, arguments: arguments)
    }

    /// A predicate from its archive: comparison, compound, `TRUEPREDICATE`, `FALSEPREDICATE`.
    /// The operator is read from `NSOperatorType`, `NSModifier` and its options (`NSOptions`, or
    /// `NSFlags` on string and membership operators), whatever operator class holds them.
    func predicate(_ uid: Int, depth: Int = 0) throws(Failure) -> Foundation.NSPredicate {
        guard depth < KeyedArchiveReader.maximumDepth else { throw Failure(message: "a predicate nests too deeply") }
        try spend()
        guard let instance = archive.instance(uid) else { throw Failure(message: "a predicate is damaged") }
        switch instance.className {
        case "NSTruePredicate": return ValuePredicate(true)
        case "NSFalsePredicate": return ValuePredicate(false)
        case "NSCompoundPredicate":
            guard let kind = archive.integer(instance, "NSCompoundPredicateType").flatMap({ UInt(exactly: $0) }),
                let type = NSCompoundPredicate.LogicalType(rawValue: kind), let list = archive.reference(instance, "NSSubpredicates"),
                let items = archive.elements(list), type != .not || items.count == 1
            else { throw Failure(message: "a compound predicate is damaged") }
            var subpredicates: [Foundation.NSPredicate] = []
            for item in items { subpredicates.append(try predicate(item, depth: depth + 1)) }
            return CompoundPredicate(type: type, subpredicates: subpredicates)
        case "NSComparisonPredicate":
            guard let left = archive.reference(instance, "NSLeftExpression"), let right = archive.reference(instance, "NSRightExpression"),
                let operatorUID = archive.reference(instance, "NSPredicateOperator"), let predicateOperator = archive.instance(operatorUID),
                let rawType = archive.integer(predicateOperator, "NSOperatorType").flatMap({ UInt(exactly: $0) }),
                let type = NSComparisonPredicate.Operator(rawValue: rawType), type != .customSelector,
                let modifier = NSComparisonPredicate.Modifier(rawValue: UInt(exactly: archive.integer(predicateOperator, "NSModifier") ?? 0) ?? 99)
            else { throw Failure(message: "a comparison predicate is damaged") }
            let options = archive.integer(predicateOperator, "NSOptions") ?? archive.integer(predicateOperator, "NSFlags") ?? 0
            return NSComparisonPredicate(
                leftExpression: try expression(left, depth: depth + 1), rightExpression: try expression(right, depth: depth + 1),
                modifier: modifier, type: type, options: NSComparisonPredicate.Options(rawValue: UInt(truncatingIfNeeded: options) & 0x7))
        case let other:
            throw Failure(message: "a predicate of class \(other) is not supported")
        }
    }
}
