import Foundation

/// Encodes a `Codable` value as its composite attribute stores it: a dictionary of its keys'
/// values, leaves as they are, nested values as dictionaries, collections as JSON data; or one
/// leaf, for a value that encodes one (an enum's raw value).
struct CompositeEncoder: Encoder {
    /// What was encoded: keys' values, or one value.
    final class Output {
        var values: [String: Any] = [:]
        var single: Any?
    }

    let output: Output
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `value` in its stored form: a dictionary, a leaf, or nil for a value that encodes nothing.
    static func storedForm<T: Encodable>(of value: T, codingPath: [any CodingKey] = []) throws -> Any? {
        if CompositeShape.leafType(of: T.self) != nil { return value }
        if CompositeShape.isCollection(T.self) { return try JSONEncoder().encode(value) }
        let output = Output()
        try value.encode(to: CompositeEncoder(output: output, codingPath: codingPath))
        return resolved(output)
    }

    /// What `output` holds, nested containers' values made dictionaries.
    private static func resolved(_ output: Output) -> Any? {
        if let single = output.single { return single }
        guard !output.values.isEmpty else { return nil }
        return output.values.mapValues { value in (value as? NestedValues).map { resolved($0.output) as Any } ?? value }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        // Only a collection encodes an unkeyed container, and collections are JSON already.
        preconditionFailure("A composite value encodes no unkeyed container.")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: CompositeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { encoder.output.values[key.stringValue] = nil }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.output.values[key.stringValue] = try CompositeEncoder.storedForm(of: value, codingPath: codingPath + [key])
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encode(value, key) }

    /// The primitive overloads, through the generic one.
    private mutating func encode<T: Encodable>(_ value: T, _ key: Key) throws { try encode(value, forKey: key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = CompositeEncoder.Output()
        encoder.output.values[key.stringValue] = NestedValues(output: nested)
        return CompositeEncoder(output: nested, codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        preconditionFailure("A composite value encodes no unkeyed container.")
    }

    mutating func superEncoder() -> any Encoder { encoder }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let nested = CompositeEncoder.Output()
        encoder.output.values[key.stringValue] = NestedValues(output: nested)
        return CompositeEncoder(output: nested, codingPath: codingPath + [key])
    }
}

/// Values a nested container is still filling; resolved by `CompositeEncoder.resolved(_:)`.
struct NestedValues {
    let output: CompositeEncoder.Output
}

private struct SingleContainer: SingleValueEncodingContainer {
    let encoder: CompositeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.output.single = nil }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.output.single = try CompositeEncoder.storedForm(of: value, codingPath: codingPath)
    }

    mutating func encode(_ value: Bool) throws { try encode(value, ()) }
    mutating func encode(_ value: String) throws { try encode(value, ()) }
    mutating func encode(_ value: Double) throws { try encode(value, ()) }
    mutating func encode(_ value: Float) throws { try encode(value, ()) }
    mutating func encode(_ value: Int) throws { try encode(value, ()) }
    mutating func encode(_ value: Int8) throws { try encode(value, ()) }
    mutating func encode(_ value: Int16) throws { try encode(value, ()) }
    mutating func encode(_ value: Int32) throws { try encode(value, ()) }
    mutating func encode(_ value: Int64) throws { try encode(value, ()) }
    mutating func encode(_ value: UInt) throws { try encode(value, ()) }
    mutating func encode(_ value: UInt8) throws { try encode(value, ()) }
    mutating func encode(_ value: UInt16) throws { try encode(value, ()) }
    mutating func encode(_ value: UInt32) throws { try encode(value, ()) }
    mutating func encode(_ value: UInt64) throws { try encode(value, ()) }

    /// The primitive overloads, through the generic one.
    private mutating func encode<T: Encodable>(_ value: T, _: Void) throws { try encode(value) }
}
