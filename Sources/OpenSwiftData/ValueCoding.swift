import Foundation
import OpenCoreData

/// How a model property's Swift type is stored, decided once per type: as Core Data holds it
/// (the primitive types), by raw value (enums), as a composite attribute (other `Codable`
/// values, one column per leaf), or as JSON (collections, and values that do not decode from
/// keys).
enum ValueCoding {
    enum Strategy {
        case direct
        case rawValue(any RawRepresentable.Type, NSAttributeType)
        case composite(CompositeShape)
        case json
        /// Not `Codable`: kept by Core Data's transformable attribute.
        case transformable
    }

    private static let strategies = Locked<[ObjectIdentifier: Strategy]>([:])

    /// The strategy for `type` (an optional's wrapped type for an optional).
    static func strategy(for type: Any.Type) -> Strategy {
        let type = (type as? any OptionalType.Type)?.wrappedType ?? type
        if CompositeShape.leafType(of: type) != nil { return .direct }
        let key = ObjectIdentifier(type)
        if let known = strategies.withLock({ $0[key] }) { return known }
        let decided = decide(type)
        strategies.withLock { $0[key] = decided }
        return decided
    }

    private static func decide(_ type: Any.Type) -> Strategy {
        if let raw = type as? any RawRepresentable.Type, let leaf = rawType(of: raw) { return .rawValue(raw, leaf) }
        if CompositeShape.isCollection(type) { return .json }
        guard let decodable = type as? any Decodable.Type, type is any Encodable.Type else { return .transformable }
        return CompositeShape.of(decodable).map { .composite($0) } ?? .json
    }

    private static func rawType<R: RawRepresentable>(of type: R.Type) -> NSAttributeType? {
        CompositeShape.leafType(of: R.RawValue.self)
    }

    /// The Core Data attribute type values of `type` are stored as.
    static func attributeType(of type: Any.Type) -> NSAttributeType {
        if let leaf = CompositeShape.leafType(of: type) { return leaf }
        switch strategy(for: type) {
        case .direct, .transformable: return .transformableAttributeType
        case .rawValue(_, let leaf): return leaf
        case .composite: return .compositeAttributeType
        case .json: return .binaryDataAttributeType
        }
    }

    /// `value` as Core Data stores it; nil for nil.
    static func storedValue(_ value: Any) -> Any? {
        guard let value = flattened(value) else { return nil }
        switch strategy(for: type(of: value)) {
        case .direct, .transformable: return value
        case .rawValue: return (value as? any RawRepresentable).map { $0.rawValue }
        case .composite, .json:
            guard let encodable = value as? any Encodable else { return nil }
            return try? storedForm(of: encodable)
        }
    }

    private static func storedForm<T: Encodable>(of value: T) throws -> Any? {
        if case .json = strategy(for: T.self) { return try JSONEncoder().encode(value) }
        return try CompositeEncoder.storedForm(of: value)
    }

    /// A stored value as `Value`; nil when it is none or does not convert.
    static func value<Value>(_ raw: Any?, as type: Value.Type) -> Value? {
        guard let raw, !(raw is NSNull) else { return nil }
        let wrapped = (type as? any OptionalType.Type)?.wrappedType ?? type
        let converted: Any?
        switch strategy(for: wrapped) {
        case .direct: converted = LeafConversion.value(raw, as: wrapped)
        case .transformable: converted = raw
        case .rawValue(let rawType, _): converted = rawValue(raw, as: rawType)
        case .composite, .json:
            guard let decodable = wrapped as? any Decodable.Type else { return nil }
            converted = decoded(decodable, from: raw)
        }
        return converted as? Value
    }

    private static func rawValue<R: RawRepresentable>(_ raw: Any, as type: R.Type) -> R? {
        LeafConversion.value(raw, as: R.RawValue.self).flatMap(R.init(rawValue:))
    }

    private static func decoded<T: Decodable>(_ type: T.Type, from raw: Any) -> T? {
        if case .json = strategy(for: type) {
            guard let data = raw as? Data else { return nil }
            return try? JSONDecoder().decode(type, from: data)
        }
        return try? CompositeDecoder.value(type, from: raw, codingPath: [])
    }
}
