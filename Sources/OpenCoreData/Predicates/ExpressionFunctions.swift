/// The functions `FUNCTION(target, "selector", arguments…)` can call. Apple sends the selector to
/// the target through the Objective-C runtime; Linux has none, so a selector evaluates only when a
/// function is registered under its name (a few of `NSString`'s are built in).
enum ExpressionFunctions {
    typealias Body = @Sendable (_ target: Any?, _ arguments: [Any?]) -> Any?

    private static let registry = Registry()

    /// `NSString` methods predicates commonly call, so that they work without registration.
    private static let builtIn: [String: Body] = [
        // `$a.$b`: the key path is the argument's value.
        NSExpression.valueForKeyPathSelector: { target, arguments in
            guard let path = arguments.first.flatMap({ ValueComparison.normalize($0) as? String }), !path.isEmpty else { return nil }
            return KeyValueReader.value(atKeyPath: path, of: target)
        },
        "uppercaseString": { target, _ in (ValueComparison.normalize(target) as? String)?.uppercased() },
        "lowercaseString": { target, _ in (ValueComparison.normalize(target) as? String)?.lowercased() },
        "length": { target, _ in (ValueComparison.normalize(target) as? String).map { NSNumber(value: ($0 as NSString).length) } },
        "stringByAppendingString:": { target, arguments in
            guard let a = ValueComparison.normalize(target) as? String, let b = ValueComparison.normalize(arguments.first ?? nil) as? String else {
                return nil
            }
            return a + b
        },
    ]

    static func register(_ name: String, _ body: @escaping Body) { registry.set(name, body) }

    static func isKnown(_ name: String) -> Bool { registry.get(name) != nil || builtIn[name] != nil }

    /// The function's result; nil when no function of that name is registered.
    static func call(_ name: String, on target: Any?, _ arguments: [Any?]) -> Any? {
        if let receiver = target as? ExpressionMessageReceiver, let answer = receiver.answer(name, arguments) { return answer }
        guard let body = registry.get(name) ?? builtIn[name] else { return nil }
        return body(target, arguments)
    }

    private final class Registry: @unchecked Sendable {
        // @unchecked Sendable: `functions` is only touched under `lock`.
        private let lock = NSLock()
        private var functions: [String: Body] = [:]

        func set(_ name: String, _ body: @escaping Body) {
            lock.lock()
            functions[name] = body
            lock.unlock()
        }

        func get(_ name: String) -> Body? {
            lock.lock()
            defer { lock.unlock() }
            return functions[name]
        }
    }
}

extension NSExpression {
    /// Registers `body` as the function `FUNCTION(target, "name", arguments…)` calls: it receives the
    /// target's value and the arguments' values. OpenCoreData addition: Apple sends `name` to the
    /// target as an Objective-C message, which Linux cannot do.
    ///
    /// ```swift
    /// NSExpression.registerFunction("double:") { target, _ in (target as? NSNumber).map { $0.intValue * 2 } }
    /// NSPredicate(format: "FUNCTION(pages, 'double:') > 10")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The selector name the format string gives, colons included (`"double:"`). It
    ///     replaces an earlier registration of that name and takes precedence over a built-in one.
    ///   - body: The function. It receives the target expression's value and the values of the
    ///     remaining arguments, in order, and returns the expression's value (`nil` for none).
    public static func registerFunction(_ name: String, _ body: @escaping @Sendable (_ target: Any?, _ arguments: [Any?]) -> Any?) {
        ExpressionFunctions.register(name, body)
    }
}

/// An object that answers `FUNCTION(object, "selector:", …)` itself, as an Objective-C object
/// answers the message on Apple platforms: the migration manager (`$manager`), a migration
/// policy (`$entityPolicy`), a context running a fetch request expression.
protocol ExpressionMessageReceiver {
    /// The message's result: `.some(value)` when the object answers `selector`, nil when it does
    /// not (registered functions are tried next).
    func answer(_ selector: String, _ arguments: [Any?]) -> Any??
}
