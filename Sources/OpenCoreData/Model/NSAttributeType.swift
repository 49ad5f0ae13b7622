/// The type of an attribute's value; the raw values are Apple's and are what the store metadata and
/// version hashes use.
public enum NSAttributeType: UInt, Sendable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    case transformableAttributeType = 1800
    case objectIDAttributeType = 2000
    case compositeAttributeType = 2100
}

extension NSAttributeType {
    /// The name Xcode writes in a model's `attributeType` XML attribute.
    package var xcodeName: String {
        switch self {
        case .undefinedAttributeType: "Undefined"
        case .integer16AttributeType: "Integer 16"
        case .integer32AttributeType: "Integer 32"
        case .integer64AttributeType: "Integer 64"
        case .decimalAttributeType: "Decimal"
        case .doubleAttributeType: "Double"
        case .floatAttributeType: "Float"
        case .stringAttributeType: "String"
        case .booleanAttributeType: "Boolean"
        case .dateAttributeType: "Date"
        case .binaryDataAttributeType: "Binary"
        case .UUIDAttributeType: "UUID"
        case .URIAttributeType: "URI"
        case .transformableAttributeType: "Transformable"
        case .objectIDAttributeType: "ObjectID"
        case .compositeAttributeType: "Composite"
        }
    }

    init?(xcodeName: String) {
        let all: [NSAttributeType] = [
            .undefinedAttributeType, .integer16AttributeType, .integer32AttributeType,
            .integer64AttributeType, .decimalAttributeType, .doubleAttributeType, .floatAttributeType,
            .stringAttributeType, .booleanAttributeType, .dateAttributeType, .binaryDataAttributeType,
            .UUIDAttributeType, .URIAttributeType, .transformableAttributeType, .objectIDAttributeType,
            .compositeAttributeType,
        ]
        guard let type = all.first(where: { $0.xcodeName == xcodeName }) else { return nil }
        self = type
    }
}

/// What happens to the destination of a relationship when its source object is deleted.
public enum NSDeleteRule: UInt, Sendable {
    /// Leave the destination alone; it may point at a deleted object afterwards.
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destination's inverse.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion while the relationship has a destination.
    case denyDeleteRule = 3
}

extension NSDeleteRule {
    /// The rule's name in an Xcode model (`deletionRule="Cascade"`).
    package var xcodeName: String {
        switch self {
        case .noActionDeleteRule: "No Action"
        case .nullifyDeleteRule: "Nullify"
        case .cascadeDeleteRule: "Cascade"
        case .denyDeleteRule: "Deny"
        }
    }
}
