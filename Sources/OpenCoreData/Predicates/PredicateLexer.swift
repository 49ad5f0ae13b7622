/// One token of a predicate format string, with the character offset where it starts so that
/// errors can point at it.
struct PredicateToken {
    enum Kind: Equatable {
        /// A word: a key, or a reserved word such as `AND` (the parser decides, case-insensitively).
        case word(String)
        /// A word written with a leading `#`: always a key, even when it spells a reserved word.
        case escapedWord(String)
        case string(String)
        case integer(Int64)
        case float(Double)
        /// `$name`.
        case variable(String)
        /// `%@`, `%K`, `%d`… (`%%` is a literal percent sign).
        case argument(FormatSpecifier)
        /// Operators and punctuation: `==`, `<=`, `&&`, `(`, `{`, `,`, `.`, `@`, `**`, `:=`…
        case symbol(String)
        case end
    }

    let kind: Kind
    /// Offset of the token's first character in the format string, counted in `Character`s.
    let offset: Int
}

/// What a `%` specifier asks for from the argument list.
enum FormatSpecifier: Equatable {
    /// `%@`: an object.
    case object
    /// `%K`: a key path.
    case keyPath
    /// `%d %i %ld %lld %hd %u %lu %llu %hu %x`: an integer.
    case integer
    /// `%f %lf %e %g`: a floating-point number.
    case double
    /// `%s`: a C string (or a Swift `String`).
    case cString
    /// `%%`: a literal `%`, consuming no argument.
    case percent
}

/// Splits a predicate format string into tokens, covering the whole grammar of Apple's
/// "Predicate Format String Syntax" (arithmetic, aggregates, indexes, assignments included) so that
/// the parser decides what is supported, with errors that say where.
struct PredicateLexer {
    private let characters: [Character]
    private var index = 0

    init(_ format: String) { characters = Array(format) }

    /// All tokens, ending with `.end`.
    ///
    /// - Throws: a parse error naming the offset of a malformed number, string or specifier.
    static func tokenize(_ format: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var current: Character? { index < characters.count ? characters[index] : nil }
    private func peek(_ distance: Int = 1) -> Character? {
        index + distance < characters.count ? characters[index + distance] : nil
    }

    private mutating func next() throws -> PredicateToken {
        while let c = current, c.isWhitespace { index += 1 }
        let start = index
        guard let c = current else { return PredicateToken(kind: .end, offset: start) }
        if c == "\"" || c == "'" { return PredicateToken(kind: .string(try string(quote: c)), offset: start) }
        if c.isASCII, c.isNumber { return PredicateToken(kind: try number(), offset: start) }
        if c == "$" {
            index += 1
            let name = word()
            guard !name.isEmpty else { throw PredicateParseError.expected("a variable name after '$'", at: start) }
            return PredicateToken(kind: .variable(name), offset: start)
        }
        if c == "#" {
            index += 1
            let name = word()
            guard !name.isEmpty else { throw PredicateParseError.expected("a key after '#'", at: start) }
            return PredicateToken(kind: .escapedWord(name), offset: start)
        }
        if c == "%" { return PredicateToken(kind: .argument(try specifier()), offset: start) }
        if Self.isWordStart(c) { return PredicateToken(kind: .word(word()), offset: start) }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.count
            return PredicateToken(kind: .symbol(symbol), offset: start)
        }
        throw PredicateParseError.unexpected("character '\(c)'", at: start)
    }

    /// Longest first, so that `<=` is not read as `<` then `=`.
    private static let symbols = [
        "**", "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", ":=", "<<", ">>",
        "=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "@", "+", "-", "*", "/", ":", "&", "|", "^", "~",
    ]

    private func matches(_ symbol: String) -> Bool {
        for (offset, character) in symbol.enumerated() where peek(offset) != character { return false }
        return true
    }

    private static func isWordStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
    private static func isWordPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    private mutating func word() -> String {
        var result = ""
        while let c = current, Self.isWordPart(c) {
            result.append(c)
            index += 1
        }
        return result
    }

    private mutating func string(quote: Character) throws -> String {
        let start = index
        index += 1
        var result = ""
        while let c = current {
            index += 1
            if c == quote { return result }
            guard c == "\\" else {
                result.append(c)
                continue
            }
            guard let escaped = current else { break }
            index += 1
            switch escaped {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "0": result.append("\0")
            case "u":
                let digits = String(characters[index..<min(index + 4, characters.count)])
                guard digits.count == 4, let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
                    throw PredicateParseError.expected("four hexadecimal digits after '\\u'", at: index - 2)
                }
                result.unicodeScalars.append(scalar)
                index += 4
            default: result.append(escaped)
            }
        }
        throw PredicateParseError.expected("a closing \(quote) for the string", at: start)
    }

    private mutating func number() throws -> PredicateToken.Kind {
        let start = index
        if current == "0", let prefix = peek(), let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][prefix] {
            index += 2
            var digits = ""
            while let c = current, c.isHexDigit || c == "_" {
                if c != "_" { digits.append(c) }
                index += 1
            }
            guard !digits.isEmpty, let value = Int64(digits, radix: radix) else {
                throw PredicateParseError.expected("a base-\(radix) number", at: start)
            }
            return .integer(value)
        }
        var text = ""
        var isFloat = false
        func digits() {
            while let c = current, c.isASCII, c.isNumber {
                text.append(c)
                index += 1
            }
        }
        digits()
        if current == ".", let next = peek(), next.isASCII, next.isNumber {
            isFloat = true
            text.append(".")
            index += 1
            digits()
        }
        if current == "e" || current == "E" {
            let sign = peek()
            let hasSign = sign == "+" || sign == "-"
            if let next = peek(hasSign ? 2 : 1), next.isASCII, next.isNumber {
                isFloat = true
                text.append("e")
                if hasSign { text.append(sign!) }
                index += hasSign ? 2 : 1
                digits()
            } else {
                throw PredicateParseError.expected("digits in the exponent of the number", at: start)
            }
        }
        if let c = current, Self.isWordPart(c) {
            throw PredicateParseError.unexpected("'\(c)' in a number", at: index)
        }
        if !isFloat, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text) else { throw PredicateParseError.expected("a number", at: start) }
        return .float(value)
    }

    private mutating func specifier() throws -> FormatSpecifier {
        let start = index
        index += 1
        var length = ""
        while let c = current, c == "l" || c == "h" || c == "q" || c == "z" {
            length.append(c)
            index += 1
        }
        guard let c = current else {
            throw PredicateParseError.expected("a format specifier after '%'", at: start)
        }
        index += 1
        switch c {
        case "@" where length.isEmpty: return .object
        case "K" where length.isEmpty: return .keyPath
        case "%" where length.isEmpty: return .percent
        case "d", "i", "u", "x", "X", "o", "D", "U", "c": return .integer
        case "f", "e", "g", "E", "G", "F": return .double
        case "s" where length.isEmpty: return .cString
        default:
            throw PredicateParseError.expected("a format specifier (%@, %K, %d, %i, %u, %f, %s or %%)", at: start)
        }
    }
}
