/// The name of a registered value transformer, as Foundation spells it on Apple platforms (Linux's
/// Foundation has no value transformers, so OpenCoreData provides them for transformable
/// attributes).
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String

    /// Creates a name from its string.
    ///
    /// - Parameter rawValue: The name, as a model's `valueTransformerName` gives it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a name from its string.
    ///
    /// - Parameter rawValue: The name, as a model's `valueTransformerName` gives it.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a name from a string literal.
    ///
    /// - Parameter value: The name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Turns a Boolean into its negation.
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// Turns any value into whether it is nil.
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// Turns any value into whether it is not nil.
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
    /// Unarchives data made by an archiver; archives in reverse. Deprecated on Apple platforms;
    /// here the keyed archiver's format, the only one Linux's Foundation reads.
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
    /// Unarchives data made by `NSKeyedArchiver`; archives in reverse.
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// Unarchives data made by `NSKeyedArchiver` with secure coding, allowing only the classes of
    /// `NSSecureUnarchiveFromDataTransformer.allowedTopLevelClasses`; archives in reverse. Core
    /// Data's transformer for a transformable attribute that names none.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}

/// Converts values to other values, and back when it allows reverse transformation: Foundation's
/// `ValueTransformer`, for transformable attributes. Subclass it, override `transformedValue(_:)`
/// (and `reverseTransformedValue(_:)`), and register an instance with
/// `setValueTransformer(_:forName:)` under the name the model's `valueTransformerName` gives.
///
/// A transformable attribute's value goes through `transformedValue(_:)` to become the data the
/// store keeps, and through `reverseTransformedValue(_:)` when read, except for the
/// unarchive-from-data transformers (`NSSecureUnarchiveFromDataTransformer` and its subclasses),
/// which Core Data applies the other way round.
open class ValueTransformer: NSObject {
    /// The class of the values `transformedValue(_:)` returns.
    ///
    /// - Returns: `NSObject` unless a subclass says otherwise.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether `reverseTransformedValue(_:)` is supported.
    ///
    /// - Returns: `true` unless a subclass says otherwise.
    open class func allowsReverseTransformation() -> Bool { true }

    /// Creates a transformer.
    override public init() { super.init() }

    /// Transforms `value`.
    ///
    /// - Parameter value: The value to transform.
    /// - Returns: The transformed value; this implementation returns `value` itself.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// Transforms a transformed value back.
    ///
    /// - Parameter value: A value `transformedValue(_:)` returned.
    /// - Returns: The original value; this implementation calls `transformedValue(_:)`, as
    ///   Foundation's does, when the class allows reverse transformation, and returns nil otherwise.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        type(of: self).allowsReverseTransformation() ? transformedValue(value) : nil
    }

    /// Registers `transformer` under `name`, or removes the transformer registered under it.
    ///
    /// - Parameters:
    ///   - transformer: The transformer, or nil to remove the one registered under `name`.
    ///   - name: The name a model's `valueTransformerName` uses.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        ValueTransformerTable.shared.set(transformer, for: name)
    }

    /// The transformer registered under `name`. (Foundation spells this `ValueTransformer(forName:)`,
    /// an initializer that returns the registered instance, which a Swift initializer cannot.)
    ///
    /// - Parameter name: A registered name, or one of Foundation's built-in names.
    /// - Returns: The transformer, or nil when none is registered under `name`.
    open class func valueTransformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        ValueTransformerTable.shared.transformer(for: name)
    }

    /// The names transformers are registered under, the built-in ones included.
    ///
    /// - Returns: The names, sorted.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        ValueTransformerTable.shared.names()
    }
}

/// The registered transformers by name, Foundation's built-in ones among them.
final class ValueTransformerTable: @unchecked Sendable {
    // @unchecked Sendable: `transformers` is read and written under `lock` only. The transformers
    // themselves are shared as Foundation shares them, and must be safe to call from any thread.
    static let shared = ValueTransformerTable()

    private let lock = NSLock()
    private var transformers: [NSValueTransformerName: ValueTransformer] = [
        .negateBooleanTransformerName: NegateBooleanTransformer(),
        .isNilTransformerName: IsNilTransformer(negated: false),
        .isNotNilTransformerName: IsNilTransformer(negated: true),
        .unarchiveFromDataTransformerName: KeyedUnarchiveFromDataTransformer(),
        .keyedUnarchiveFromDataTransformerName: KeyedUnarchiveFromDataTransformer(),
        .secureUnarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer(),
    ]

    func set(_ transformer: ValueTransformer?, for name: NSValueTransformerName) {
        lock.withLock { transformers[name] = transformer }
    }

    func transformer(for name: NSValueTransformerName) -> ValueTransformer? {
        lock.withLock { transformers[name] }
    }

    func names() -> [NSValueTransformerName] {
        lock.withLock { transformers.keys.sorted { $0.rawValue < $1.rawValue } }
    }
}

/// `NSNegateBoolean`: true for false and false for true; its own reverse.
private final class NegateBooleanTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }

    override func transformedValue(_ value: Any?) -> Any? {
        let flag = (value as? Bool) ?? (value as? NSNumber)?.boolValue ?? false
        return NSNumber(value: !flag)
    }
}

/// `NSIsNil` and `NSIsNotNil`: whether the value is (not) nil; not reversible.
private final class IsNilTransformer: ValueTransformer {
    private let negated: Bool

    init(negated: Bool) {
        self.negated = negated
        super.init()
    }

    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }

    override func transformedValue(_ value: Any?) -> Any? {
        let isNil = value == nil || value is NSNull
        return NSNumber(value: negated ? !isNil : isNil)
    }
}
