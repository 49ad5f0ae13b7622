/// `[FIRST]`, `[LAST]` and `[SIZE]` in an index expression, kept as the index constant of Apple's
/// `objectFrom:withIndex:` function so that the expression prints back as written.
package enum IndexSymbol: String, Hashable, Sendable {
    case first = "FIRST"
    case last = "LAST"
    case size = "SIZE"

    package static let functionName = "objectFrom:withIndex:"

    /// `collection[index]`: an element of an array, ordered set or set (in its iteration order,
    /// which Apple leaves undefined for sets), a dictionary's value for a key, or the count.
    static func element(of collection: Any?, at index: Any?) -> Any? {
        guard let collection = ValueComparison.normalize(collection) else { return nil }
        if let dictionary = collection as? [String: Any] { return (ValueComparison.normalize(index) as? String).flatMap { dictionary[$0] } }
        if let dictionary = collection as? NSDictionary { return index.flatMap { dictionary.object(forKey: $0) } }
        guard let items = ValueComparison.collectionElements(collection) else { return nil }
        switch index {
        case IndexSymbol.first?: return items.first ?? nil
        case IndexSymbol.last?: return items.last ?? nil
        case IndexSymbol.size?: return NSNumber(value: items.count)
        default:
            guard let position = ValueComparison.normalize(index).flatMap(ValueComparison.int64Value), position >= 0, position < items.count else {
                return nil
            }
            return items[Int(position)]
        }
    }
}

/// The type names `CAST(value, "…")` converts to when the value is known only at evaluation
/// (Apple's `castObject:toType:` function); constant casts are folded by the parser.
enum CastType: String {
    case number = "NSNumber"
    case string = "NSString"
    case swiftString = "String"
    case date = "NSDate"
    case swiftDate = "Date"

    static let functionName = "castObject:toType:"

    func cast(_ value: Any?) -> Any? {
        let value = ValueComparison.normalize(value)
        switch self {
        case .number:
            switch value {
            case let x as Int64: return NSNumber(value: x)
            case let x as Double: return NSNumber(value: x)
            case let x as Decimal: return NSDecimalNumber(decimal: x)
            case let x as Date: return NSNumber(value: x.timeIntervalSinceReferenceDate)
            case let x as String:
                let trimmed = x.trimmingCharacters(in: .whitespaces)
                if let n = Int64(trimmed) { return NSNumber(value: n) }
                return Double(trimmed).map { NSNumber(value: $0) }
            default: return nil
            }
        case .string, .swiftString:
            switch value {
            case nil: return nil
            case let x as String: return x
            case let x as Int64: return String(x)
            // Whole numbers print without a fraction, as NSNumber's description does.
            case let x as Double: return x.rounded() == x && abs(x) < 1e15 ? String(Int64(x)) : String(x)
            case let x as Date: return String(x.timeIntervalSinceReferenceDate)
            case let x?: return "\(x)"
            }
        case .date, .swiftDate:
            switch value {
            case let x as Date: return x
            case let x?: return ValueComparison.doubleValue(x).map { Date(timeIntervalSinceReferenceDate: $0) }
            default: return nil
            }
        }
    }
}

/// Apple's built-in expression functions beyond arithmetic and the aggregates, evaluated in
/// memory (the SQLite store refuses them).
enum ExpressionBuiltins {
    static let names: Set<String> = [
        "median:", "mode:", "stddev:", "log:", "ln:", "exp:", "random", "random:", "bitwiseAnd:with:", "bitwiseOr:with:",
        "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:", "noindex:", "length:",
        IndexSymbol.functionName, CastType.functionName,
    ]

    static func call(_ name: String, _ arguments: [Any?]) -> Any? {
        func numbers() -> [Double] {
            let items = arguments.count == 1 ? (arguments[0].flatMap(ValueComparison.collectionElements) ?? arguments) : arguments
            return items.compactMap { ValueComparison.normalize($0).flatMap(ValueComparison.doubleValue) }
        }
        func integer(_ index: Int) -> Int64? {
            index < arguments.count ? ValueComparison.normalize(arguments[index]).flatMap(ValueComparison.int64Value) : nil
        }
        func double(_ index: Int) -> Double? {
            index < arguments.count ? ValueComparison.normalize(arguments[index]).flatMap(ValueComparison.doubleValue) : nil
        }
        switch name {
        case IndexSymbol.functionName:
            return arguments.count == 2 ? IndexSymbol.element(of: arguments[0], at: arguments[1]) : nil
        case CastType.functionName:
            guard arguments.count == 2, let type = (ValueComparison.normalize(arguments[1]) as? String).flatMap(CastType.init) else { return nil }
            return type.cast(arguments[0])
        case "median:":
            let values = numbers().sorted()
            guard !values.isEmpty else { return nil }
            let middle = values.count / 2
            return NSNumber(value: values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2)
        case "mode:":
            var counts: [Double: Int] = [:]
            for value in numbers() { counts[value, default: 0] += 1 }
            let most = counts.values.max() ?? 0
            return counts.filter { $0.value == most }.keys.sorted().map { NSNumber(value: $0) }
        case "stddev:":
            // The population standard deviation.
            let values = numbers()
            guard !values.isEmpty else { return nil }
            let mean = values.reduce(0, +) / Double(values.count)
            return NSNumber(value: (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot())
        case "log:": return double(0).map { NSNumber(value: log10($0)) }
        case "ln:": return double(0).map { NSNumber(value: Foundation.log($0)) }
        case "exp:": return double(0).map { NSNumber(value: Foundation.exp($0)) }
        case "random": return NSNumber(value: Double.random(in: 0..<1))
        case "random:":
            let items = arguments.first.flatMap { $0.flatMap(ValueComparison.collectionElements) } ?? []
            return items.randomElement() ?? nil
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:":
            guard let a = integer(0), let b = integer(1) else { return nil }
            switch name {
            case "bitwiseAnd:with:": return NSNumber(value: a & b)
            case "bitwiseOr:with:": return NSNumber(value: a | b)
            case "bitwiseXor:with:": return NSNumber(value: a ^ b)
            case "leftshift:by:": return NSNumber(value: a << b)
            default: return NSNumber(value: a >> b)
            }
        case "onesComplement:": return integer(0).map { NSNumber(value: ~$0) }
        case "noindex:": return arguments.first ?? nil
        case "length:": return (ValueComparison.normalize(arguments.first ?? nil) as? String).map { NSNumber(value: ($0 as NSString).length) }
        default: return nil
        }
    }
}
