import Foundation
import OpenCoreData

/// What a `Codable` value is made of, as SwiftData stores it: leaves (one column each) and nested
/// values (a composite within the composite), in the order the type decodes them.
struct CompositeShape {
    struct Element {
        let name: String
        let kind: Kind
        var isOptional: Bool
    }

    enum Kind {
        /// A leaf of a Core Data attribute type.
        case leaf(NSAttributeType)
        /// A nested value of its own shape.
        case composite(CompositeShape)
        /// A collection inside the value: kept as JSON in one binary column.
        case encoded
    }

    var elements: [Element] = []

    /// The shape of `type`, read by decoding it from a probe that notes each key asked for and
    /// answers with a stand-in value. Nil for a type that does not decode from keys (an enum with
    /// associated values that refuses every stand-in, a type decoding from an unkeyed container).
    static func of(_ type: any Decodable.Type) -> CompositeShape? {
        let probe = ShapeProbe()
        do {
            _ = try type.init(from: CompositeDecoder(source: .probe(probe), codingPath: []))
        } catch {
            return nil
        }
        return probe.isKeyed ? probe.shape : nil
    }

    /// The composite attribute description of this shape, named `name`.
    func attribute(named name: String) -> NSCompositeAttributeDescription {
        let composite = NSCompositeAttributeDescription()
        composite.name = name
        composite.elements = elements.map { element in
            let description: NSAttributeDescription
            switch element.kind {
            case .leaf(let type):
                description = NSAttributeDescription()
                description.name = element.name
                description.attributeType = type
            case .composite(let shape):
                description = shape.attribute(named: element.name)
            case .encoded:
                description = NSAttributeDescription()
                description.name = element.name
                description.attributeType = .binaryDataAttributeType
            }
            description.isOptional = element.isOptional
            return description
        }
        return composite
    }

    /// The Core Data type of a leaf type; nil for anything that is not a leaf.
    static func leafType(of type: Any.Type) -> NSAttributeType? {
        switch type {
        case is String.Type: .stringAttributeType
        case is Bool.Type: .booleanAttributeType
        case is Int.Type, is Int64.Type, is UInt.Type, is UInt64.Type: .integer64AttributeType
        case is Int32.Type, is UInt32.Type: .integer32AttributeType
        case is Int16.Type, is UInt16.Type, is Int8.Type, is UInt8.Type: .integer16AttributeType
        case is Double.Type: .doubleAttributeType
        case is Float.Type: .floatAttributeType
        case is Date.Type: .dateAttributeType
        case is Data.Type: .binaryDataAttributeType
        case is UUID.Type: .UUIDAttributeType
        case is URL.Type: .URIAttributeType
        case is Decimal.Type: .decimalAttributeType
        default: nil
        }
    }

    /// Whether values of `type` are collections, kept as JSON.
    static func isCollection(_ type: Any.Type) -> Bool {
        type is any ModelValueCollection.Type
    }
}

/// Arrays, sets and dictionaries: values SwiftData keeps whole rather than element by element.
protocol ModelValueCollection {}
extension Array: ModelValueCollection {}
extension Set: ModelValueCollection {}
extension Dictionary: ModelValueCollection {}

/// What a probe decoding learns: the keys asked for, with their kinds.
final class ShapeProbe {
    var shape = CompositeShape()
    /// Whether the type asked for keys (a struct) rather than one value (an enum's raw value).
    var isKeyed = false
    /// The leaf type a single-value decode asked for.
    var singleValueType: NSAttributeType?

    func note(_ name: String, _ kind: CompositeShape.Kind) {
        if let index = shape.elements.firstIndex(where: { $0.name == name }) {
            let isOptional = shape.elements[index].isOptional
            shape.elements[index] = .init(name: name, kind: kind, isOptional: isOptional)
        } else {
            shape.elements.append(.init(name: name, kind: kind, isOptional: false))
        }
    }

    func noteOptional(_ name: String) {
        if let index = shape.elements.firstIndex(where: { $0.name == name }) {
            shape.elements[index].isOptional = true
        } else {
            shape.elements.append(.init(name: name, kind: .leaf(.undefinedAttributeType), isOptional: true))
        }
    }
}
