/// The special forms of the grammar: index expressions, `FUNCTION`, `TERNARY`, `SUBQUERY` and
/// `CAST`, each parsed after its keyword (or its `[`) into Apple's expression for it.
extension PredicateParser {
    /// `collection[FIRST]`, `[LAST]`, `[SIZE]`, `array[n]`, `dictionary["key"]`: Apple's
    /// `objectFrom:withIndex:` function.
    mutating func parseIndex(of collection: NSExpression) throws -> NSExpression {
        let start = token.offset
        advance()
        let index: NSExpression
        if case .word(let w) = token.kind, let symbol = IndexSymbol(rawValue: w.uppercased()) {
            advance()
            index = NSExpression(forConstantValue: symbol)
        } else if isSymbol("]") {
            throw PredicateParseError.expected("an index, a key, FIRST, LAST or SIZE inside '[ ]'", at: token.offset)
        } else {
            index = try parseExpression()
        }
        try expect(symbol: "]", what: "']' (the '[' at offset \(start) is still open)")
        return NSExpression(storage: .function(IndexSymbol.functionName, arguments: [collection, index]))
    }

    /// `FUNCTION(target, "selector", arguments…)`.
    mutating func parseFunction(at offset: Int) throws -> NSExpression {
        try expect(symbol: "(", what: "'(' after FUNCTION")
        let target = try parseExpression()
        try expect(symbol: ",", what: "',' and a quoted selector name after the target of FUNCTION")
        guard case .string(let selector) = token.kind, !selector.isEmpty else {
            throw PredicateParseError.expected("a quoted selector name such as 'uppercaseString' in FUNCTION, found \(describe(token))", at: token.offset)
        }
        advance()
        var arguments: [NSExpression] = []
        while accept(symbol: ",") { arguments.append(try parseExpression()) }
        try expect(symbol: ")", what: "',' or ')' to close FUNCTION (opened at offset \(offset))")
        return NSExpression(storage: .method(target, selector, arguments: arguments))
    }

    /// `TERNARY(predicate, valueIfTrue, valueIfFalse)`.
    mutating func parseTernary(at offset: Int) throws -> NSExpression {
        try expect(symbol: "(", what: "'(' after TERNARY")
        let predicate = try parseOr()
        try expect(symbol: ",", what: "',' and the value when the predicate holds in TERNARY")
        let yes = try parseExpression()
        try expect(symbol: ",", what: "',' and the value when the predicate fails in TERNARY")
        let no = try parseExpression()
        try expect(symbol: ")", what: "')' to close TERNARY (opened at offset \(offset))")
        return NSExpression(storage: .conditional(predicate, yes, no))
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    mutating func parseSubquery(at offset: Int) throws -> NSExpression {
        try expect(symbol: "(", what: "'(' after SUBQUERY")
        let collection = try parseExpression()
        try expect(symbol: ",", what: "',' and an iterator variable such as $x after the collection of SUBQUERY")
        guard case .variable(let variable) = token.kind else {
            throw PredicateParseError.expected("an iterator variable such as $x in SUBQUERY, found \(describe(token))", at: token.offset)
        }
        advance()
        try expect(symbol: ",", what: "',' and a predicate after the variable of SUBQUERY")
        let predicate = try parseOr()
        try expect(symbol: ")", what: "')' to close SUBQUERY (opened at offset \(offset))")
        return NSExpression(storage: .subquery(collection, variable: variable, predicate: predicate))
    }

    /// `{key: value, …}` after its first key and the colon: OpenCoreData's literal for the
    /// dictionary constants `description` prints. Keys and values must be constants.
    mutating func parseDictionary(firstKey: NSExpression, at offset: Int) throws -> NSExpression {
        var dictionary: [AnyHashable: Any] = [:]
        var key = firstKey
        while true {
            let value = try parseExpression()
            guard case .constant(let keyConstant) = key.storage, let hashable = keyConstant as? AnyHashable,
                case .constant(let valueConstant) = value.storage
            else {
                throw PredicateParseError.expected("constant keys and values in the dictionary at offset \(offset)", at: token.offset)
            }
            dictionary[hashable] = valueConstant ?? NSNull()
            guard accept(symbol: ",") else { break }
            key = try parseExpression()
            try expect(symbol: ":", what: "':' after a key of the dictionary at offset \(offset)")
        }
        try expect(symbol: "}", what: "',' or '}' (the '{' at offset \(offset) is still open)")
        return NSExpression(forConstantValue: dictionary)
    }

    /// `CAST(value, "NSDate")`: Apple's printed form of date constants, and number / string casts.
    mutating func parseCast(at offset: Int) throws -> NSExpression {
        try expect(symbol: "(", what: "'(' after CAST")
        let value = try parseExpression()
        try expect(symbol: ",", what: "',' and a type name in CAST")
        guard case .string(let typeName) = token.kind else {
            throw PredicateParseError.expected("a quoted type name such as \"NSDate\" in CAST", at: token.offset)
        }
        advance()
        try expect(symbol: ")", what: "')' to close CAST")
        guard case .constant(let constant) = value.storage else {
            // A value known only at evaluation: Apple's castObject:toType: function.
            guard CastType(rawValue: typeName) != nil else { throw PredicateParseError.unsupported("CAST to \(typeName)", at: offset) }
            return NSExpression(storage: .function(CastType.functionName, arguments: [value, NSExpression(forConstantValue: typeName)]))
        }
        switch typeName {
        case "NSDate", "Date":
            guard let seconds = ValueComparison.normalize(constant).flatMap(ValueComparison.doubleValue) else {
                throw PredicateParseError.expected("a number of seconds since 2001 in CAST to NSDate", at: offset)
            }
            return NSExpression(forConstantValue: Date(timeIntervalSinceReferenceDate: seconds))
        case "NSNumber", "NSString", "String":
            return NSExpression(forConstantValue: CastType(rawValue: typeName)!.cast(constant))
        case "NSUUID", "UUID":
            guard let string = constant as? String, let uuid = UUID(uuidString: string) else {
                throw PredicateParseError.expected("a UUID string in CAST to UUID", at: offset)
            }
            return NSExpression(forConstantValue: uuid)
        // OpenCoreData's own casts, in which `description` prints constants that have no literal.
        case "NSDecimalNumber", "Decimal":
            let text = (constant as? String) ?? ValueComparison.normalize(constant).map { "\($0)" }
            guard let text, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw PredicateParseError.expected("a decimal number in CAST to NSDecimalNumber", at: offset)
            }
            return NSExpression(forConstantValue: NSDecimalNumber(decimal: decimal))
        case "NSData", "Data":
            guard let string = constant as? String, let data = Data(base64Encoded: string) else {
                throw PredicateParseError.expected("base64 text in CAST to NSData", at: offset)
            }
            return NSExpression(forConstantValue: data)
        default:
            throw PredicateParseError.unsupported("CAST to \(typeName)", at: offset)
        }
    }
}
