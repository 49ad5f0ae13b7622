import Crypto

/// Core Data's entity and property version hashes, bit-exact with Apple's (docs/sqlite-format.md §11,
/// checked against every fixture model and store).
package enum VersionHasher {
    static func hash(of property: NSPropertyDescription) -> Data {
        var base = Data(property.name.utf8)
        let flags: UInt16 =
            (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0) | (property.isReadOnly ? 4 : 0)
        base.appendLittleEndian(flags)
        if let modifier = property.versionHashModifier { base.append(contentsOf: modifier.utf8) }
        var bytes = sha256(base)

        if let attribute = property as? NSAttributeDescription {
            bytes.appendLittleEndian(Int32(truncatingIfNeeded: attribute.attributeType.rawValue))
            if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
            if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
            // Not checked against a store Apple wrote (no fixture has a composite): the elements'
            // own hashes, in name order, as an entity mixes in its properties'.
            if let composite = attribute as? NSCompositeAttributeDescription {
                for element in composite.elements.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
                    bytes.append(element.versionHash)
                }
            }
        } else if let relationship = property as? NSRelationshipDescription {
            if let destination = relationship.destinationEntity?.name ?? relationship.destinationEntityName {
                bytes.append(contentsOf: destination.utf8)
            }
            if let inverse = relationship.inverseRelationship?.name ?? relationship.inverseRelationshipName {
                bytes.append(contentsOf: inverse.utf8)
            }
            bytes.appendLittleEndian(Int32(truncatingIfNeeded: relationship.maxCount))
            bytes.appendLittleEndian(Int32(truncatingIfNeeded: relationship.minCount))
            if relationship.isOrdered { bytes.appendLittleEndian(UInt16(1)) }
        } else {
            return bytes
        }
        return sha256(bytes)
    }

    static func hash(of entity: NSEntityDescription) -> Data {
        var bytes = Data((entity.name ?? "").utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let superentity = entity.superentity { bytes.append(superentity.versionHash) }
        let stored = entity.properties.filter { !$0.isTransient }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for property in stored { bytes.append(property.versionHash) }
        for constraint in entity.uniquenessConstraints {
            bytes.append(contentsOf: constraintNames(constraint).joined(separator: ".").utf8)
        }
        if let modifier = entity.versionHashModifier { bytes.append(contentsOf: modifier.utf8) }
        return sha256(bytes)
    }

    /// The property names of a uniqueness constraint, whose elements may be names or descriptions.
    package static func constraintNames(_ constraint: [Any]) -> [String] {
        constraint.compactMap { element in
            if let name = element as? String { return name }
            return (element as? NSPropertyDescription)?.name
        }
    }

    /// `NSStoreModelVersionHashesDigest`: base64(SHA-512(name ‖ hash, over names sorted ascending)).
    static func digest(of hashes: [String: Data]) -> String {
        var bytes = Data()
        for name in hashes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            bytes.append(contentsOf: name.utf8)
            bytes.append(hashes[name]!)
        }
        return Data(SHA512.hash(data: bytes)).base64EncodedString()
    }

    /// `NSStoreModelVersionChecksumKey`: base64(SHA-256(hashes in entity-name order)).
    static func checksum(of hashes: [String: Data]) -> String {
        var bytes = Data()
        for name in hashes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            bytes.append(hashes[name]!)
        }
        return sha256(bytes).base64EncodedString()
    }

    private static func sha256(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }
}

extension Data {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
