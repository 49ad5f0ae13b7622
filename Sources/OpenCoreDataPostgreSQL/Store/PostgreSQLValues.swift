import OpenCoreData

/// Slot values as the PostgreSQL store's columns hold them (`PostgreSQLSchema`), and back.
enum PostgreSQLValues {
    /// What an attribute's slot value is sent as.
    /// The relational layer's stored form, sent as the dialect sends a bound value.
    static func value(_ value: SlotValue, attribute: NSAttributeDescription?) -> PostgreSQLValue {
        PostgreSQLDialect.value(value.sqlValue(for: attribute, marksExternalData: false))
    }

    /// `$n` with the cast its column's type needs from the text a decimal or UUID is sent as.
    static func parameter(_ number: Int, for attribute: NSAttributeDescription?) -> String {
        switch attribute?.attributeType {
        case .decimalAttributeType?: "$\(number)::numeric"
        case .UUIDAttributeType?: "$\(number)::uuid"
        default: "$\(number)"
        }
    }

    /// The slot value of `attribute` read from a column.
    static func slot(_ value: PostgreSQLValue, attribute: NSAttributeDescription) -> SlotValue {
        if case .null = value { return .null }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            if case .integer(let v) = value { return .int(v) }
        case .doubleAttributeType, .floatAttributeType:
            if case .real(let v) = value { return .double(v) }
        case .dateAttributeType:
            if case .real(let v) = value { return .date(Date(timeIntervalSinceReferenceDate: v)) }
        case .decimalAttributeType:
            if case .text(let v) = value, let decimal = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(decimal) }
        case .stringAttributeType:
            if case .text(let v) = value { return .string(v) }
        case .URIAttributeType:
            if case .text(let v) = value { return URL(string: v).map { .url($0) } ?? .string(v) }
        case .UUIDAttributeType:
            if case .text(let v) = value, let uuid = UUID(uuidString: v) { return .uuid(uuid) }
        case .binaryDataAttributeType:
            if case .bytes(let v) = value { return .data(v) }
        default:
            if case .bytes(let v) = value { return .object(AnyBox(ValueTransformerRegistry.decode(v, attribute: attribute) as Any)) }
        }
        // A value of another shape than the column's (a table altered by hand) reads as nil
        // rather than as a wrong value.
        return .null
    }

    /// An integer column's value; nil for NULL or another shape.
    static func integer(_ value: PostgreSQLValue) -> Int64? {
        if case .integer(let v) = value { return v }
        return nil
    }
}
