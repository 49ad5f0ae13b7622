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

    /// Whether `path` names an element of this shape (a leaf, or a nested value and then one of
    /// its elements).
    ///
    /// - Parameter path: Element names, outermost first.
    /// - Returns: Whether each names an element of the shape the one before leads to.
    func hasPath(_ path: ArraySlice<String>) -> Bool {
        guard let first = path.first, let element = elements.first(where: { $0.name == first }) else { return false }
        if path.count == 1 { return true }
        guard case .composite(let nested) = element.kind else { return false }
        return nested.hasPath(path.dropFirst())
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
        leafTypes[ObjectIdentifier(type)]
    }

    /// The leaf types by identity: one hash lookup where a chain of casts took one per type.
    private static let leafTypes: [ObjectIdentifier: NSAttributeType] = {
        var types: [ObjectIdentifier: NSAttributeType] = [:]
        func add(_ attributeType: NSAttributeType, _ swiftTypes: Any.Type...) {
            for type in swiftTypes { types[ObjectIdentifier(type)] = attributeType }
        }
        add(.stringAttributeType, String.self)
        add(.booleanAttributeType, Bool.self)
        add(.integer64AttributeType, Int.self, Int64.self, UInt.self, UInt64.self)
        add(.integer32AttributeType, Int32.self, UInt32.self)
        add(.integer16AttributeType, Int16.self, UInt16.self, Int8.self, UInt8.self)
        add(.doubleAttributeType, Double.self)
        add(.floatAttributeType, Float.self)
        add(.dateAttributeType, Date.self)
        add(.binaryDataAttributeType, Data.self)
        add(.UUIDAttributeType, UUID.self)
        add(.URIAttributeType, URL.self)
        add(.decimalAttributeType, Decimal.self)
        return types
    }()

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
