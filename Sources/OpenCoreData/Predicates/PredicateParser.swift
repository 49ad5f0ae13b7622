/// Builds predicates and expressions from a format string, following Apple's "Predicate Format
/// String Syntax" and its BNF.
///
/// Precedence, loosest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparison; within expressions
/// `+ -`, `* /`, `**`, unary minus, then key paths and literals. The result is the public object
/// model: `NSComparisonPredicate`, `NSCompoundPredicate` (as `CompoundPredicate`), `NSPredicate(value:)`,
/// `NSExpression`. Constructs of the grammar that are recognised but not implemented (assignments
/// `:=`, `FETCH`, `ANYKEY`) are refused with an error that names their position.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var position = 0
    private let arguments: [Any?]
    private var argumentIndex = 0
    /// How deep the parse is in parentheses, `NOT`s, unary minuses, function arguments and
    /// subqueries: bounded, so that no input can overflow the stack of the thread that parses it.
    private var depth = 0
    /// Where reading a parenthesized predicate already failed, and why: `(` is tried as a
    /// predicate and then as an expression, and without this each level of nesting would try
    /// the levels inside it again (quadratic for `((…a…)) == 1`, exponential inside functions).
    private var failedPredicates: [Int: PredicateParseError] = [:]

    /// The deepest nesting a format string may have. Real predicates nest a handful of levels;
    /// each level costs about a dozen stack frames here, in the evaluator and in `description`.
    static let maximumDepth = 100

    private init(tokens: [PredicateToken], arguments: [Any?]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    /// Parses a whole predicate, substituting `arguments` for the `%` specifiers in order.
    ///
    /// - Throws: `PredicateParseError` naming the offset and what was expected there.
    static func parsePredicate(_ format: String, arguments: [Any?]) throws -> Foundation.NSPredicate {
        var parser = PredicateParser(tokens: try PredicateLexer.tokenize(format), arguments: arguments)
        let predicate = try parser.parseOr()
        try parser.expectEnd(what: "AND, OR or the end of the predicate")
        return predicate
    }

    /// Parses a whole expression, as `NSExpression(format:)` does.
    static func parseExpression(_ format: String, arguments: [Any?]) throws -> NSExpression {
        var parser = PredicateParser(tokens: try PredicateLexer.tokenize(format), arguments: arguments)
        let expression = try parser.parseExpression()
        try parser.expectEnd(what: "an operator or the end of the expression")
        return expression
    }

    /// Words with a meaning in the grammar; a key spelled like one needs a leading `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI", "MATCHES",
        "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO",
        "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE", "FALSEPREDICATE",
        "FUNCTION", "TERNARY",
    ]

    // MARK: Tokens

    var token: PredicateToken { tokens[position] }

    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    func isWord(_ word: String) -> Bool {
        if case .word(let w) = token.kind { return w.uppercased() == word }
        return false
    }

    func isSymbol(_ symbol: String) -> Bool { token.kind == .symbol(symbol) }

    mutating func accept(word: String) -> Bool {
        guard isWord(word) else { return false }
        advance()
        return true
    }

    mutating func accept(symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func expect(symbol: String, what: String) throws {
        guard accept(symbol: symbol) else { throw PredicateParseError.expected(what, at: token.offset) }
    }

    private func expectEnd(what: String) throws {
        guard token.kind == .end else {
            throw PredicateParseError.expected("\(what), found \(describe(token))", at: token.offset)
        }
    }

    func describe(_ token: PredicateToken) -> String {
        switch token.kind {
        case .word(let w): "'\(w)'"
        case .escapedWord(let w): "'#\(w)'"
        case .string(let s): "the string \"\(s)\""
        case .integer(let n): "the number \(n)"
        case .float(let n): "the number \(n)"
        case .variable(let v): "'$\(v)'"
        case .argument: "a format specifier"
        case .symbol(let s): "'\(s)'"
        case .end: "the end of the format string"
        }
    }

    // MARK: Predicates

    /// Enters one level of nesting.
    ///
    /// - Throws: A parse error at the current token when the format nests deeper than
    ///   `maximumDepth`.
    private mutating func enter() throws {
        depth += 1
        if depth > Self.maximumDepth {
            throw PredicateParseError(
                message: "a format nested deeper than \(Self.maximumDepth) levels", offset: token.offset)
        }
    }

    private mutating func leave() { depth -= 1 }

    mutating func parseOr() throws -> Foundation.NSPredicate {
        try enter()
        defer { leave() }
        var operands = [try parseAnd()]
        while accept(word: "OR") || accept(symbol: "||") { operands.append(try parseAnd()) }
        return operands.count == 1 ? operands[0] : CompoundPredicate(type: .or, subpredicates: operands)
    }

    private mutating func parseAnd() throws -> Foundation.NSPredicate {
        var operands = [try parseNot()]
        while accept(word: "AND") || accept(symbol: "&&") { operands.append(try parseNot()) }
        return operands.count == 1 ? operands[0] : CompoundPredicate(type: .and, subpredicates: operands)
    }

    private mutating func parseNot() throws -> Foundation.NSPredicate {
        if accept(word: "NOT") || accept(symbol: "!") {
            try enter()
            defer { leave() }
            return CompoundPredicate(type: .not, subpredicates: [try parseNot()])
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> Foundation.NSPredicate {
        if accept(word: "TRUEPREDICATE") { return ValuePredicate(true) }
        if accept(word: "FALSEPREDICATE") { return ValuePredicate(false) }
        if isSymbol("(") {
            // `(` opens either a parenthesized predicate or an expression such as `(a + b) > 3`:
            // try the predicate first and fall back to a comparison.
            let saved = (position, argumentIndex)
            let predicateError: PredicateParseError
            if let failed = failedPredicates[position] {
                predicateError = failed
            } else {
                advance()
                do {
                    let predicate = try parseOr()
                    if accept(symbol: ")") { return predicate }
                    predicateError = .expected("')' or a comparison operator, found \(describe(token))", at: token.offset)
                } catch let error as PredicateParseError {
                    predicateError = error
                }
                failedPredicates[saved.0] = predicateError
            }
            (position, argumentIndex) = saved
            do {
                return try parseComparison(modifier: .direct)
            } catch let error as PredicateParseError {
                // Report whichever reading got further: that is where the string goes wrong.
                throw error.offset >= predicateError.offset ? error : predicateError
            }
        }
        var modifier = NSComparisonPredicate.Modifier.direct
        var negate = false
        if accept(word: "ANY") || accept(word: "SOME") {
            modifier = .any
        } else if accept(word: "ALL") {
            modifier = .all
        } else if accept(word: "NONE") {
            // Apple reads NONE as NOT ANY.
            modifier = .any
            negate = true
        }
        let comparison = try parseComparison(modifier: modifier)
        return negate ? CompoundPredicate(type: .not, subpredicates: [comparison]) : comparison
    }

    private static let symbolOperators: [String: NSComparisonPredicate.Operator] = [
        "=": .equalTo, "==": .equalTo, "!=": .notEqualTo, "<>": .notEqualTo, "<": .lessThan, "<=": .lessThanOrEqualTo,
        "=<": .lessThanOrEqualTo, ">": .greaterThan, ">=": .greaterThanOrEqualTo, "=>": .greaterThanOrEqualTo,
    ]

    private static let wordOperators: [String: NSComparisonPredicate.Operator] = [
        "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "CONTAINS": .contains, "LIKE": .like, "MATCHES": .matches,
        "IN": .in, "BETWEEN": .between,
    ]

    private mutating func parseComparison(modifier: NSComparisonPredicate.Modifier) throws -> NSComparisonPredicate {
        let left = try parseExpression()
        let operatorOffset = token.offset
        let type: NSComparisonPredicate.Operator
        switch token.kind {
        case .symbol(let s) where Self.symbolOperators[s] != nil: type = Self.symbolOperators[s]!
        case .word(let w) where Self.wordOperators[w.uppercased()] != nil: type = Self.wordOperators[w.uppercased()]!
        default:
            throw PredicateParseError.expected(
                "a comparison operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN, BETWEEN), found \(describe(token))",
                at: operatorOffset)
        }
        advance()
        let options = try parseOptions()
        let right = try parseExpression()
        return NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: modifier, type: type, options: options)
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]` after an operator.
    private mutating func parseOptions() throws -> NSComparisonPredicate.Options {
        guard isSymbol("[") else { return [] }
        let start = token.offset
        advance()
        guard case .word(let letters) = token.kind else {
            throw PredicateParseError.expected("comparison options (c, d, n) inside '[ ]'", at: token.offset)
        }
        var options: NSComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default: throw PredicateParseError.expected("comparison options c, d or n, found '\(letters)'", at: token.offset)
            }
        }
        advance()
        try expect(symbol: "]", what: "']' (the '[' at offset \(start) is still open)")
        return options
    }

    // MARK: Expressions

    mutating func parseExpression() throws -> NSExpression {
        try enter()
        defer { leave() }
        return try parseBitwise(level: 0)
    }

    /// The bitwise operators, loosest first, as C binds them: `|`, then `^`, then `&`, then the
    /// shifts; each is the function Apple's parser makes of it (`bitwiseOr:with:` …), which the
    /// evaluator runs on 64-bit integers.
    private static let bitwiseLevels: [[(symbol: String, function: String)]] = [
        [("|", "bitwiseOr:with:")],
        [("^", "bitwiseXor:with:")],
        [("&", "bitwiseAnd:with:")],
        [("<<", "leftshift:by:"), (">>", "rightshift:by:")],
    ]

    private mutating func parseBitwise(level: Int) throws -> NSExpression {
        guard level < Self.bitwiseLevels.count else { return try parseSum() }
        var left = try parseBitwise(level: level + 1)
        operators: while true {
            for (symbol, function) in Self.bitwiseLevels[level] where accept(symbol: symbol) {
                left = NSExpression(storage: .function(function, arguments: [left, try parseBitwise(level: level + 1)]))
                continue operators
            }
            return left
        }
    }

    private mutating func parseSum() throws -> NSExpression {
        var left = try parseTerm()
        while true {
            if accept(symbol: "+") {
                left = NSExpression(storage: .function("add:to:", arguments: [left, try parseTerm()]))
            } else if accept(symbol: "-") {
                left = NSExpression(storage: .function("from:subtract:", arguments: [left, try parseTerm()]))
            } else {
                return left
            }
        }
    }

    private mutating func parseTerm() throws -> NSExpression {
        var left = try parsePower()
        while true {
            if accept(symbol: "*") {
                left = NSExpression(storage: .function("multiply:by:", arguments: [left, try parsePower()]))
            } else if accept(symbol: "/") {
                left = NSExpression(storage: .function("divide:by:", arguments: [left, try parsePower()]))
            } else {
                return left
            }
        }
    }

    private mutating func parsePower() throws -> NSExpression {
        var left = try parseUnary()
        while accept(symbol: "**") {
            left = NSExpression(storage: .function("raise:toPower:", arguments: [left, try parseUnary()]))
        }
        return left
    }

    private mutating func parseUnary() throws -> NSExpression {
        if accept(symbol: "~") {
            try enter()
            defer { leave() }
            return NSExpression(storage: .function("onesComplement:", arguments: [try parseUnary()]))
        }
        guard accept(symbol: "-") else { return try parsePostfix() }
        try enter()
        defer { leave() }
        let operand = try parseUnary()
        if case .constant(let value) = operand.storage, let number = value as? NSNumber {
            let negated: NSNumber
            switch ValueComparison.normalize(number) {
            case let integer as Int64 where integer != .min: negated = NSNumber(value: -integer)
            case let double as Double where double == 9_223_372_036_854_775_808: negated = NSNumber(value: Int64.min)
            default: negated = NSNumber(value: -number.doubleValue)
            }
            return NSExpression(forConstantValue: negated)
        }
        return NSExpression(storage: .function("from:subtract:", arguments: [NSExpression(forConstantValue: 0), operand]))
    }

    private mutating func parsePostfix() throws -> NSExpression {
        var expression = try parsePrimary()
        while true {
            if isSymbol("[") {
                expression = try parseIndex(of: expression)
                continue
            }
            guard isSymbol(".") else { return expression }
            let dot = token.offset
            advance()
            // A variable after the dot is a key path given when the predicate is evaluated
            // (`$a.$b`, `a.$b`): Foundation sends `valueForKeyPath:` with the variable's value.
            if case .variable(let name) = token.kind {
                advance()
                expression = NSExpression(storage: .method(expression, NSExpression.valueForKeyPathSelector, arguments: [NSExpression(forVariable: name)]))
                continue
            }
            let component = try parseKeyComponent(after: dot)
            switch expression.storage {
            case .keyPath(let path): expression = NSExpression(forKeyPath: path + "." + component)
            case .evaluatedObject: expression = NSExpression(forKeyPath: component)
            case .operandKeyPath(let operand, let path): expression = NSExpression(storage: .operandKeyPath(operand, path + "." + component))
            default: expression = NSExpression(storage: .operandKeyPath(expression, component))
            }
        }
    }

    /// One component of a key path: a key, a `#`-escaped key, or a collection operator (`@count`).
    private mutating func parseKeyComponent(after offset: Int) throws -> String {
        switch token.kind {
        case .word(let w) where !Self.reservedWords.contains(w.uppercased()):
            advance()
            return w
        case .escapedWord(let w):
            advance()
            return w
        case .symbol("@"):
            advance()
            guard case .word(let w) = token.kind else {
                throw PredicateParseError.expected("a collection operator such as @count after '@'", at: token.offset)
            }
            advance()
            return "@" + w
        default:
            throw PredicateParseError.expected("a key after '.', found \(describe(token))", at: token.offset)
        }
    }

    private mutating func parsePrimary() throws -> NSExpression {
        let start = token
        switch start.kind {
        case .string(let s):
            advance()
            return NSExpression(forConstantValue: s)
        case .integer(let n):
            advance()
            return NSExpression(forConstantValue: NSNumber(value: n))
        case .float(let n):
            advance()
            return NSExpression(forConstantValue: NSNumber(value: n))
        case .variable(let name):
            advance()
            if isSymbol(":=") { throw PredicateParseError.unsupported("An assignment (':=')", at: token.offset) }
            return NSExpression(forVariable: name)
        case .argument(let specifier):
            advance()
            return try argumentExpression(specifier, at: start.offset)
        case .escapedWord(let w):
            advance()
            return NSExpression(forKeyPath: w)
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expect(symbol: ")", what: "')' (the '(' at offset \(start.offset) is still open)")
            return inner
        case .symbol("{"):
            advance()
            var items: [NSExpression] = []
            if !accept(symbol: "}") {
                items.append(try parseExpression())
                if accept(symbol: ":") { return try parseDictionary(firstKey: items[0], at: start.offset) }
                while accept(symbol: ",") { items.append(try parseExpression()) }
                try expect(symbol: "}", what: "',' or '}' (the '{' at offset \(start.offset) is still open)")
            }
            return NSExpression(storage: .aggregate(items))
        case .symbol("@"):
            return NSExpression(forKeyPath: try parseKeyComponent(after: start.offset))
        case .word(let w):
            return try wordExpression(w, at: start.offset)
        default:
            throw PredicateParseError.expected("an expression (a key path, a value or a format specifier), found \(describe(start))", at: start.offset)
        }
    }

    private mutating func wordExpression(_ word: String, at offset: Int) throws -> NSExpression {
        let upper = word.uppercased()
        switch upper {
        case "NULL", "NIL":
            advance()
            return NSExpression(forConstantValue: nil)
        case "TRUE", "YES":
            advance()
            return NSExpression(forConstantValue: NSNumber(value: true))
        case "FALSE", "NO":
            advance()
            return NSExpression(forConstantValue: NSNumber(value: false))
        case "SELF":
            advance()
            return NSExpression.expressionForEvaluatedObject()
        case "CAST":
            advance()
            return try parseCast(at: offset)
        case "SUBQUERY":
            advance()
            return try parseSubquery(at: offset)
        case "FUNCTION":
            advance()
            return try parseFunction(at: offset)
        case "TERNARY":
            advance()
            return try parseTernary(at: offset)
        case "FETCH", "ANYKEY":
            throw PredicateParseError.unsupported(upper, at: offset)
        default:
            break
        }
        if Self.reservedWords.contains(upper) {
            throw PredicateParseError.expected("an expression, found the reserved word '\(word)' (write #\(word) for a key of that name)", at: offset)
        }
        advance()
        // The selector form NSExpression's description writes and Xcode's derivations use:
        // `canonical:(name)`, `add:to:(1, 2)`.
        if accept(symbol: ":") {
            var selector = word + ":"
            while case .word(let part) = token.kind, position + 1 < tokens.count, tokens[position + 1].kind == .symbol(":") {
                selector += part + ":"
                advance()
                advance()
            }
            try expect(symbol: "(", what: "'(' and the arguments of \(selector)")
            var arguments: [NSExpression] = []
            if !accept(symbol: ")") {
                repeat { arguments.append(try parseExpression()) } while accept(symbol: ",")
                try expect(symbol: ")", what: "',' or ')' to close the arguments of \(selector)")
            }
            guard PredicateEvaluator.functionNames.contains(selector) else {
                throw PredicateParseError.unsupported("The function \(selector)", at: offset)
            }
            return NSExpression(storage: .function(selector, arguments: arguments))
        }
        if accept(symbol: "(") {
            var arguments: [NSExpression] = []
            if !accept(symbol: ")") {
                repeat { arguments.append(try parseExpression()) } while accept(symbol: ",")
                try expect(symbol: ")", what: "',' or ')' to close the arguments of \(word)")
            }
            guard PredicateEvaluator.functionNames.contains(word + (arguments.isEmpty ? "" : ":")) else {
                throw PredicateParseError.unsupported("The function \(word)()", at: offset)
            }
            return NSExpression(storage: .function(word + (arguments.isEmpty ? "" : ":"), arguments: arguments))
        }
        return NSExpression(forKeyPath: word)
    }

    // MARK: Arguments

    private mutating func nextArgument(_ specifier: String, at offset: Int) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw PredicateParseError.expected(
                "an argument for \(specifier) (only \(arguments.count) given)", at: offset)
        }
        defer { argumentIndex += 1 }
        let value = arguments[argumentIndex]
        return value is NSNull ? nil : value
    }

    private mutating func argumentExpression(_ specifier: FormatSpecifier, at offset: Int) throws -> NSExpression {
        switch specifier {
        case .percent:
            return NSExpression(forConstantValue: "%")
        case .object:
            let value = try nextArgument("%@", at: offset)
            if let expression = value as? NSExpression { return expression }
            return NSExpression(forConstantValue: Self.normalizeArgument(value))
        case .keyPath:
            guard let key = try nextArgument("%K", at: offset).flatMap({ $0 as? String ?? ($0 as? NSString).map(String.init) }) else {
                throw PredicateParseError.expected("a key path string as the argument of %K", at: offset)
            }
            return key == "SELF" ? .expressionForEvaluatedObject() : NSExpression(forKeyPath: key)
        case .integer:
            guard let number = ValueComparison.normalize(try nextArgument("%d", at: offset)), let n = ValueComparison.int64Value(number) else {
                throw PredicateParseError.expected("an integer as the argument of an integer specifier", at: offset)
            }
            return NSExpression(forConstantValue: NSNumber(value: n))
        case .double:
            guard let number = ValueComparison.normalize(try nextArgument("%f", at: offset)), let d = ValueComparison.doubleValue(number) else {
                throw PredicateParseError.expected("a number as the argument of %f", at: offset)
            }
            return NSExpression(forConstantValue: NSNumber(value: d))
        case .cString:
            let value = try nextArgument("%s", at: offset)
            if let string = value as? String { return NSExpression(forConstantValue: string) }
            if let pointer = value as? UnsafePointer<CChar> { return NSExpression(forConstantValue: String(cString: pointer)) }
            if let pointer = value as? UnsafeMutablePointer<CChar> { return NSExpression(forConstantValue: String(cString: pointer)) }
            throw PredicateParseError.expected("a C string as the argument of %s", at: offset)
        }
    }

    /// Foundation containers become Swift ones, so evaluation and printing see one shape.
    static func normalizeArgument(_ value: Any?) -> Any? {
        switch value {
        case let string as NSString: return string as String
        case let ordered as NSOrderedSet: return ordered.array
        case let set as NSSet: return Array(set)
        case let array as NSArray: return array.map { $0 }
        default: return value
        }
    }
}
