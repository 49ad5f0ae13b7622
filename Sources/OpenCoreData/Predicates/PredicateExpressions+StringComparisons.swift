import Foundation

// `#Predicate`'s string comparisons that Linux's Foundation leaves out: the macro writes
// `$0.name.localizedStandardContains(text)` as `PredicateExpressions.build_localizedStandardContains`,
// which Apple's Foundation declares and swift-foundation declares only when it is Apple's. Declared
// here with Apple's names and meaning, so that search code written for SwiftData and Core Data
// compiles unchanged; on Apple platforms Foundation's own are used.
#if !canImport(Darwin)
extension PredicateExpressions {
    /// `root.localizedStandardContains(other)`: whether `other` occurs in `root`, ignoring case and
    /// diacritics, as a search field matches. A store compiles it as `CONTAINS[cd]`.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = Bool

        /// The string searched.
        public let root: Root
        /// The string searched for.
        public let other: Other

        /// - Parameters:
        ///   - root: The string searched.
        ///   - other: The string searched for.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// - Parameter bindings: The predicate's input values.
        /// - Returns: Whether `other` occurs in `root`, case and diacritics aside.
        /// - Throws: What evaluating either operand throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// `root.caseInsensitiveCompare(other)`: how `root` orders against `other`, ignoring case.
    /// A predicate compares the result with a constant (`== .orderedSame`), which a store compiles
    /// as `==[c]`, `<[c]` or `>[c]`.
    public struct StringCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = ComparisonResult

        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// - Parameters:
        ///   - root: The string compared.
        ///   - other: The string it is compared with.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// - Parameter bindings: The predicate's input values.
        /// - Returns: The order of `root` against `other`, case aside.
        /// - Throws: What evaluating either operand throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).caseInsensitiveCompare(try other.evaluate(bindings))
        }
    }

    /// `root.localizedCompare(other)`: how `root` orders against `other` in the current locale.
    /// A store compiles `== .orderedSame` and `!= .orderedSame` as `==` and `!=`; it has no
    /// locale's order for the other results.
    public struct StringLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = ComparisonResult

        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// - Parameters:
        ///   - root: The string compared.
        ///   - other: The string it is compared with.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// - Parameter bindings: The predicate's input values.
        /// - Returns: The order of `root` against `other` in the current locale.
        /// - Throws: What evaluating either operand throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).localizedCompare(try other.evaluate(bindings))
        }
    }

    /// What `#Predicate` writes for `root.localizedStandardContains(other)`.
    ///
    /// - Parameters:
    ///   - root: The string searched.
    ///   - other: The string searched for.
    /// - Returns: The expression.
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }

    /// What `#Predicate` writes for `root.caseInsensitiveCompare(other)`.
    ///
    /// - Parameters:
    ///   - root: The string compared.
    ///   - other: The string it is compared with.
    /// - Returns: The expression.
    public static func build_caseInsensitiveCompare<Root, Other>(_ root: Root, _ other: Other) -> StringCaseInsensitiveCompare<Root, Other> {
        StringCaseInsensitiveCompare(root: root, other: other)
    }

    /// What `#Predicate` writes for `root.localizedCompare(other)`.
    ///
    /// - Parameters:
    ///   - root: The string compared.
    ///   - other: The string it is compared with.
    /// - Returns: The expression.
    public static func build_localizedCompare<Root, Other>(_ root: Root, _ other: Other) -> StringLocalizedCompare<Root, Other> {
        StringLocalizedCompare(root: root, other: other)
    }
}

/// The three comparisons encode as their two operands, in order.
private protocol StringComparisonOperands {
    associatedtype Root
    associatedtype Other
    init(root: Root, other: Other)
    var root: Root { get }
    var other: Other { get }
}

extension StringComparisonOperands where Root: Codable, Other: Codable {
    fileprivate init(decodingOperandsFrom decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let root = try container.decode(Root.self)
        self.init(root: root, other: try container.decode(Other.self))
    }

    fileprivate func encodeOperands(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StringComparisonOperands {}
extension PredicateExpressions.StringCaseInsensitiveCompare: StringComparisonOperands {}
extension PredicateExpressions.StringLocalizedCompare: StringComparisonOperands {}

extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {
    /// Decodes the two operands, in order.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: What decoding either operand throws.
    public init(from decoder: any Decoder) throws { try self.init(decodingOperandsFrom: decoder) }

    /// Encodes the two operands, in order.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What encoding either operand throws.
    public func encode(to encoder: any Encoder) throws { try encodeOperands(to: encoder) }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {
    /// Decodes the two operands, in order.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: What decoding either operand throws.
    public init(from decoder: any Decoder) throws { try self.init(decodingOperandsFrom: decoder) }

    /// Encodes the two operands, in order.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What encoding either operand throws.
    public func encode(to encoder: any Encoder) throws { try encodeOperands(to: encoder) }
}

extension PredicateExpressions.StringLocalizedCompare: Codable where Root: Codable, Other: Codable {
    /// Decodes the two operands, in order.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: What decoding either operand throws.
    public init(from decoder: any Decoder) throws { try self.init(decodingOperandsFrom: decoder) }

    /// Encodes the two operands, in order.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What encoding either operand throws.
    public func encode(to encoder: any Encoder) throws { try encodeOperands(to: encoder) }
}

extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
#endif
