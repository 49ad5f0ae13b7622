import Foundation

/// Decodes a `Codable` value from its composite attribute's dictionary (`.values`), from one
/// stored leaf (`.single`, an enum's raw value), or from nothing at all (`.probe`), answering
/// every key with a stand-in while noting what was asked: how `CompositeShape` learns a type.
struct CompositeDecoder: Decoder {
    enum Source {
        case probe(ShapeProbe)
        case values([String: Any])
        case single(Any?)
    }

    let source: Source
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch source {
        case .probe(let probe): probe.isKeyed = true
        case .values: break
        case .single(let value):
            guard value is [String: Any] else { throw mismatch([String: Any].self, "a composite value") }
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw mismatch([Any].self, "a list inside a composite value is stored as JSON, not element by element")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

    private func mismatch(_ type: Any.Type, _ text: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: text))
    }

    /// `type` decoded from `raw`, the stored form of one value.
    static func value<T: Decodable>(_ type: T.Type, from raw: Any?, codingPath: [any CodingKey]) throws -> T {
        guard let raw, !(raw is NSNull) else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "no stored value"))
        }
        if CompositeShape.leafType(of: type) != nil {
            guard let value = LeafConversion.value(raw, as: type) else {
                throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "stored \(Swift.type(of: raw))"))
            }
            return value
        }
        if CompositeShape.isCollection(type) {
            guard let data = raw as? Data else {
                throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "a list is stored as JSON data"))
            }
            return try JSONDecoder().decode(type, from: data)
        }
        if let values = raw as? [String: Any] { return try T(from: CompositeDecoder(source: .values(values), codingPath: codingPath)) }
        return try T(from: CompositeDecoder(source: .single(raw), codingPath: codingPath))
    }

    /// A stand-in of `type` for a probe, noting under `name` what `type` is.
    static func standIn<T: Decodable>(_ type: T.Type, named name: String?, probe: ShapeProbe) throws -> T {
        if let leaf = CompositeShape.leafType(of: type) {
            if let name { probe.note(name, .leaf(leaf)) } else { probe.singleValueType = leaf }
            return LeafConversion.standIn(type)!
        }
        if CompositeShape.isCollection(type) {
            if let name { probe.note(name, .encoded) }
            let empty = (try? JSONDecoder().decode(type, from: Data("[]".utf8))) ?? (try? JSONDecoder().decode(type, from: Data("{}".utf8)))
            guard let empty else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(type) has no empty value")) }
            return empty
        }
        let nested = ShapeProbe()
        let value: T
        do {
            value = try T(from: CompositeDecoder(source: .probe(nested), codingPath: []))
        } catch {
            // An enum refuses the stand-in raw value; its noted raw type is what counts. A value
            // of plain bits (such an enum, a struct of numbers) is made of zeros instead.
            guard _isPOD(type) else { throw error }
            value = withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
                UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: 0)
                return buffer[0]
            }
        }
        let kind: CompositeShape.Kind
        if nested.isKeyed {
            kind = .composite(nested.shape)
        } else if let leaf = nested.singleValueType {
            kind = .leaf(leaf)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(type) decodes no value"))
        }
        if let name {
            probe.note(name, kind)
        } else if case .leaf(let leaf) = kind {
            probe.singleValueType = leaf
        }
        return value
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CompositeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    private var values: [String: Any] {
        switch decoder.source {
        case .values(let values): values
        case .single(let value): value as? [String: Any] ?? [:]
        case .probe: [:]
        }
    }

    var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        if case .probe = decoder.source { return true }
        return values[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .probe(let probe) = decoder.source {
            probe.noteOptional(key.stringValue)
            return false
        }
        let value = values[key.stringValue]
        return value == nil || value is NSNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if case .probe(let probe) = decoder.source { return try CompositeDecoder.standIn(type, named: key.stringValue, probe: probe) }
        return try CompositeDecoder.value(type, from: values[key.stringValue], codingPath: codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

    /// The primitive overloads, through the generic one.
    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T { try decode(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try superDecoder(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try superDecoder(forKey: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        switch decoder.source {
        case .probe:
            return CompositeDecoder(source: .probe(ShapeProbe()), codingPath: codingPath + [key])
        case .values, .single:
            return CompositeDecoder(source: .single(values[key.stringValue]), codingPath: codingPath + [key])
        }
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let decoder: CompositeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        switch decoder.source {
        case .probe: false
        case .values: false
        case .single(let value): value == nil || value is NSNull
        }
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch decoder.source {
        case .probe(let probe): return try CompositeDecoder.standIn(type, named: nil, probe: probe)
        case .values(let values): return try CompositeDecoder.value(type, from: values, codingPath: codingPath)
        case .single(let value): return try CompositeDecoder.value(type, from: value, codingPath: codingPath)
        }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try decode(type, ()) }
    func decode(_ type: String.Type) throws -> String { try decode(type, ()) }
    func decode(_ type: Double.Type) throws -> Double { try decode(type, ()) }
    func decode(_ type: Float.Type) throws -> Float { try decode(type, ()) }
    func decode(_ type: Int.Type) throws -> Int { try decode(type, ()) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decode(type, ()) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decode(type, ()) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decode(type, ()) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decode(type, ()) }
    func decode(_ type: UInt.Type) throws -> UInt { try decode(type, ()) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(type, ()) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(type, ()) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(type, ()) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(type, ()) }

    /// The primitive overloads, through the generic one.
    private func decode<T: Decodable>(_ type: T.Type, _: Void) throws -> T { try decode(type) }
}
