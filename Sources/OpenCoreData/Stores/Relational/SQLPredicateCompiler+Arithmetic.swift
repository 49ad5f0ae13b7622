import Foundation

extension SQLPredicateCompiler {
    /// `a + b`, `a - b`, `a * b` and `a / constant` over numbers, as the evaluator computes them:
    /// integers overflow into floating point in both, a nil or non-number operand gives nil, and
    /// division is always in floating point. Division by a key path is refused, since SQL gives
    /// NULL where the evaluator gives an infinity.
    mutating func arithmetic(
        _ name: String, _ arguments: [NSExpression], _ expression: NSExpression, _ predicate: Foundation.NSPredicate
    ) throws -> Operand {
        let left = try operand(arguments[0], of: predicate)
        let right = try operand(arguments[1], of: predicate)
        if case .constant = left, case .constant = right {
            return .constant(PredicateEvaluator.value(of: expression, object: nil, bindings: nil))
        }
        let a = try number(left, predicate)
        if name == "divide:by:" {
            guard case .constant(let divisor) = right, let value = ValueComparison.normalize(divisor).flatMap(ValueComparison.doubleValue),
                value != 0
            else {
                throw unsupported(predicate, "division is compiled to SQL only by a constant other than zero")
            }
            return .value("(\(dialect.floatingPoint(a)) / \(bind: .real(value)))", .number)
        }
        let b = try number(right, predicate)
        let symbol = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*"][name]!
        return .value("(\(dialect.arithmeticOperand(a)) \(raw: symbol) \(b))", .number)
    }

    /// An arithmetic operand: a number, or NULL where the evaluator would find no number.
    private func number(_ operand: Operand, _ predicate: Foundation.NSPredicate) throws -> SQLFragment {
        switch operand {
        case .constant(let value):
            switch ValueComparison.normalize(value) {
            case let x as Int64: return "\(bind: .integer(x))"
            case let x as Double: return "\(bind: .real(x))"
            case let x as Decimal: return "\(bind: .real(NSDecimalNumber(decimal: x).doubleValue))"
            default: return "NULL"
            }
        case .value(let value, let kind):
            return kind.valueClass == .number ? value : "NULL"
        case .elements:
            throw unsupported(predicate, "arithmetic on a to-many key path needs a collection operator such as @sum")
        }
    }
}
