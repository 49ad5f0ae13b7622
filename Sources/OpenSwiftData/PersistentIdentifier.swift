import Foundation
import OpenCoreData

/// The identity of a stored model: which store, which entity, which row. Stable across contexts
/// and launches once the model is saved; `Sendable` and `Codable`, so it crosses actors and can be
/// written down. A model not yet saved has a temporary identifier, replaced at the save.
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable {
    /// Which row, or which unsaved object.
    enum Key: Hashable, Sendable {
        /// A saved row's primary key.
        case row(Int64)
        /// An unsaved object's temporary identifier in its context.
        case temporary(UUID)
        /// A model outside any context: the model object's address.
        case unattached(UInt)
    }

    /// The entity's name.
    public let entityName: String
    /// The identifier of the store holding the row; nil for a model not yet saved.
    public let storeIdentifier: String?
    let key: Key

    /// The identifier of the object `objectID` names. Kept as its parts, not as the object ID's
    /// URI: a save hands out one per saved object (`didSave`), and a URL per object cost more
    /// than the rest of the save.
    init(_ objectID: NSManagedObjectID) {
        entityName = objectID.entity.name ?? ""
        if let temporary = objectID.temporaryUUID {
            storeIdentifier = nil
            key = .temporary(temporary)
        } else {
            storeIdentifier = objectID.storeIdentifier
            key = .row(objectID.primaryKey)
        }
    }

    /// The identifiers of a save's new objects, from the keys and runs the save recorded: each
    /// run's store identifier and entity name are read once, and no object is touched but one
    /// saved without a row.
    ///
    /// - Parameter saved: The save's new objects.
    /// - Returns: Their identifiers, in the order saved.
    /// - Complexity: O(n).
    static func identifiers(of saved: SavedInserts) -> [PersistentIdentifier] {
        var identifiers: [PersistentIdentifier] = []
        identifiers.reserveCapacity(saved.keys.count)
        var nextRun = 0
        var names: (entity: String, store: String) = ("", "")
        for (position, key) in saved.keys.enumerated() {
            while nextRun < saved.runs.count, saved.runs[nextRun].start <= position {
                let run = saved.runs[nextRun]
                names = (run.entity.name ?? "", run.store.identifier)
                nextRun += 1
            }
            if key == 0 {
                identifiers.append(PersistentIdentifier(saved.objects[position].objectID))
            } else {
                identifiers.append(PersistentIdentifier(entityName: names.entity, storeIdentifier: names.store, key: .row(key)))
            }
        }
        return identifiers
    }

    /// The identifiers of a save's objects, reading each store's identifier and entity's name
    /// once for a run of objects that share them (a save's million new objects share both), and
    /// each saved object's row from the object itself, without making its ID.
    ///
    /// - Parameter objects: The objects, in their context while it lives.
    /// - Returns: Their identifiers, in the same order.
    /// - Complexity: O(n).
    static func identifiers(of objects: [NSManagedObject]) -> [PersistentIdentifier] {
        var store: (address: UnsafeMutableRawPointer, identifier: String)?
        var entity: (description: NSEntityDescription, name: String)?
        var identifiers: [PersistentIdentifier] = []
        identifiers.reserveCapacity(objects.count)
        for object in objects {
            guard let row = object.savedRow else {
                identifiers.append(PersistentIdentifier(object.objectID))
                continue
            }
            let name: String
            if let entity, entity.description === object.entity {
                name = entity.name
            } else {
                name = object.entity.name ?? ""
                entity = (object.entity, name)
            }
            let storeIdentifier: String
            if let store, store.address == row.store.toOpaque() {
                storeIdentifier = store.identifier
            } else {
                storeIdentifier = row.store.takeUnretainedValue().identifier
                store = (row.store.toOpaque(), storeIdentifier)
            }
            identifiers.append(PersistentIdentifier(entityName: name, storeIdentifier: storeIdentifier, key: .row(row.primaryKey)))
        }
        return identifiers
    }

    private init(entityName: String, storeIdentifier: String?, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    /// A placeholder for a model outside any context: unique to the model object.
    init(unattached model: AnyObject) {
        entityName = String(describing: type(of: model))
        storeIdentifier = nil
        key = .unattached(UInt(bitPattern: ObjectIdentifier(model).hashValue))
    }

    /// Core Data's URI for the object (`x-coredata://STORE/Entity/pN`), which names all three.
    var uri: URL {
        switch key {
        case .row(let primaryKey): URL(string: "x-coredata://\(storeIdentifier ?? "")/\(entityName)/p\(primaryKey)")!
        case .temporary(let uuid): URL(string: "x-coredata:///\(entityName)/t\(uuid.uuidString)")!
        case .unattached(let address): URL(string: "x-swiftdata:///\(entityName)/u\(address)")!
        }
    }

    /// Orders by store, entity, then row (unsaved objects after saved ones).
    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.storeIdentifier != rhs.storeIdentifier { return (lhs.storeIdentifier ?? "\u{10FFFF}") < (rhs.storeIdentifier ?? "\u{10FFFF}") }
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        switch (lhs.key, rhs.key) {
        case (.row(let a), .row(let b)): return a < b
        case (.row, _): return true
        case (_, .row): return false
        default: return lhs.uri.absoluteString < rhs.uri.absoluteString
        }
    }

    private enum CodingKeys: String, CodingKey {
        case uri, entityName, storeIdentifier
    }

    /// Decodes the form `encode(to:)` writes: the URI, with the entity and store beside it.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for a URI that names no row or object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uri = try container.decode(URL.self, forKey: .uri)
        entityName = try container.decode(String.self, forKey: .entityName)
        storeIdentifier = try container.decodeIfPresent(String.self, forKey: .storeIdentifier)
        let last = uri.lastPathComponent
        let body = String(last.dropFirst())
        if last.hasPrefix("p"), let primaryKey = Int64(body) {
            key = .row(primaryKey)
        } else if last.hasPrefix("t"), let uuid = UUID(uuidString: body) {
            key = .temporary(uuid)
        } else if last.hasPrefix("u"), let address = UInt(body) {
            key = .unattached(address)
        } else {
            throw DecodingError.dataCorruptedError(forKey: .uri, in: container, debugDescription: "\(uri) names no stored object")
        }
    }

    /// Encodes the identifier as its Core Data URI, entity name and store identifier.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uri, forKey: .uri)
        try container.encode(entityName, forKey: .entityName)
        try container.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
    }

    /// The managed object ID this identifier names, for `coordinator`; nil when none of its
    /// stores has it.
    func objectID(in coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectID? {
        coordinator.managedObjectID(forURIRepresentation: uri)
    }
}
