/// An attribute: a property that holds a value (a number, string, date, data…).
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: see NSPropertyDescription.

    /// The type of the attribute's value.
    @exclusivity(unchecked) open var attributeType: NSAttributeType = .undefinedAttributeType { willSet { assertMutable() } }
    /// The name of the class of the attribute's value (for transformable attributes, the custom class).
    open var attributeValueClassName: String? { willSet { assertMutable() } }
    /// The value a newly inserted object starts with.
    open var defaultValue: Any? { willSet { assertMutable() } }
    /// The name of the `ValueTransformer` that turns a transformable value into data and back.
    open var valueTransformerName: String? { willSet { assertMutable() } }
    /// Whether a large binary value may be stored beside the store file instead of in it.
    open var allowsExternalBinaryDataStorage: Bool = false { willSet { assertMutable() } }
    /// Whether persistent history keeps this value after the object is deleted.
    open var preservesValueInHistoryOnDeletion: Bool = false { willSet { assertMutable() } }
    /// Recorded for compatibility; CloudKit encryption is an Apple-only feature.
    open var allowsCloudEncryption: Bool = false

    /// Bounds and patterns from the model (Xcode's min/max/regex fields), checked at save.
    var rules = AttributeRules() { willSet { assertMutable() } }

    /// An attribute with no name and an undefined type; set both before adding it to an entity.
    override public init() { super.init() }

    /// Whether the attribute holds a number of any kind (including Boolean).
    var isNumeric: Bool {
        switch attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            true
        default: false
        }
    }
}

/// The validation rules Xcode's model editor offers for an attribute.
struct AttributeRules: Sendable {
    /// Lower bound: a number, a date's `timeIntervalSinceReferenceDate`, or a string's or data's length.
    var minimum: Double?
    /// Upper bound, in the same units as `minimum`.
    var maximum: Double?
    /// A regular expression a string value must match entirely.
    var pattern: String?

    var isEmpty: Bool { minimum == nil && maximum == nil && pattern == nil }
}
