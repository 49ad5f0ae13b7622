extension NSExpression {
    /// Whether the expression's value depends on the object it is evaluated for: false for
    /// constants and functions of constants (`now()`, `2 * 3`), which a store computes once.
    package var readsEvaluatedObject: Bool {
        switch storage {
        case .constant: false
        case .function(_, let arguments), .aggregate(let arguments): arguments.contains { $0.readsEvaluatedObject }
        case .method(let target, _, let arguments): target.readsEvaluatedObject || arguments.contains { $0.readsEvaluatedObject }
        case .setOperation(_, let a, let b): a.readsEvaluatedObject || b.readsEvaluatedObject
        case .evaluatedObject, .variable, .keyPath, .anyKey, .operandKeyPath, .subquery, .conditional: true
        }
    }
}
