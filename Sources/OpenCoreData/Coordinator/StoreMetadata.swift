import Foundation

/// The metadata every store keeps, as Core Data writes it: the model's version hashes and
/// identifiers, the store's type and UUID.
package enum StoreMetadata {
    /// The Core Data build number OpenCoreData writes as `NSPersistenceFrameworkVersion`: the
    /// version seen in the newest Apple stores we checked.
    static let frameworkVersion = 1344

    /// The metadata Core Data writes for a store of type `type` holding `entities`.
    package static func make(for model: NSManagedObjectModel, entities: [NSEntityDescription], uuid: String, type: String) -> [String: Any] {
        var hashes: [String: Data] = [:]
        for entity in entities { hashes[entity.name!] = entity.versionHash }
        let identifiers = model.versionIdentifiers.map { "\($0.base)" }.sorted()
        return [
            NSStoreModelVersionHashesKey: hashes,
            "NSStoreModelVersionHashesVersion": 3,
            NSStoreModelVersionIdentifiersKey: identifiers,
            NSStoreTypeKey: type,
            "NSPersistenceFrameworkVersion": frameworkVersion,
            "NSStoreModelVersionHashesDigest": VersionHasher.digest(of: hashes),
            "NSStoreModelVersionChecksumKey": VersionHasher.checksum(of: hashes),
            NSStoreUUIDKey: uuid,
        ]
    }

    /// Whether the store's version hashes equal the model's, entity by entity.
    package static func hashesMatch(_ metadata: [String: Any], entities: [NSEntityDescription]) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any], stored.count == entities.count
        else { return false }
        return entities.allSatisfy { entity in
            (stored[entity.name!] as? Data) == entity.versionHash
        }
    }

    /// The property list bytes a store keeps (`Z_PLIST`): everything but `NSStoreUUID`, which
    /// a store keeps beside them (`Z_UUID`).
    package static func encode(_ metadata: [String: Any]) throws -> Data {
        var plist = metadata
        plist[NSStoreUUIDKey] = nil
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    /// The metadata from the kept property list bytes and UUID.
    package static func decode(plist: Data, uuid: String?) throws -> [String: Any] {
        let object = try PropertyListSerialization.propertyList(from: plist, options: [], format: nil)
        guard var metadata = object as? [String: Any] else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The store metadata is not a dictionary.")
        }
        if let uuid { metadata[NSStoreUUIDKey] = uuid }
        return metadata
    }
}
