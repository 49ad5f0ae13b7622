extension NSAttributeDescription {
    /// An attribute's type as Core Data's Swift API has spelled it since iOS 15:
    /// `attribute.type = .string`. It wraps `NSAttributeType`, so both spellings describe the same
    /// type and convert through `rawValue`.
    public struct AttributeType: Hashable, RawRepresentable, Sendable {
        /// The type as `NSAttributeType`.
        public var rawValue: NSAttributeType

        /// Wraps an `NSAttributeType`.
        ///
        /// - Parameter rawValue: The type.
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }

        /// No type yet (`NSAttributeType.undefinedAttributeType`), for transient attributes.
        public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
        /// A 16-bit integer.
        public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
        /// A 32-bit integer.
        public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
        /// A 64-bit integer.
        public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
        /// A decimal number.
        public static let decimal = AttributeType(rawValue: .decimalAttributeType)
        /// A double-precision floating-point number.
        public static let double = AttributeType(rawValue: .doubleAttributeType)
        /// A single-precision floating-point number.
        public static let float = AttributeType(rawValue: .floatAttributeType)
        /// A string.
        public static let string = AttributeType(rawValue: .stringAttributeType)
        /// A Boolean.
        public static let boolean = AttributeType(rawValue: .booleanAttributeType)
        /// A date.
        public static let date = AttributeType(rawValue: .dateAttributeType)
        /// Binary data.
        public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
        /// A UUID.
        public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
        /// A URL.
        public static let uri = AttributeType(rawValue: .URIAttributeType)
        /// A value stored through a value transformer.
        public static let transformable = AttributeType(rawValue: .transformableAttributeType)
        /// A managed object ID.
        public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
        /// A composite of other attributes.
        public static let composite = AttributeType(rawValue: .compositeAttributeType)
    }

    /// The attribute's type: the same as `attributeType`, in the iOS 15 spelling.
    public var type: AttributeType {
        get { AttributeType(rawValue: attributeType) }
        set { attributeType = newValue.rawValue }
    }
}
