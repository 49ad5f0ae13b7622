import Foundation
import OpenCoreData

/// The identity of a stored model: which store, which entity, which row. Stable across contexts
/// and launches once the model is saved; `Sendable` and `Codable`, so it crosses actors and can be
/// written down. A model not yet saved has a temporary identifier, replaced at the save.
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable {
    /// Core Data's URI for the object (`x-coredata://STORE/Entity/pN`), which names all three.
    let uri: URL
    /// The entity's name.
    public let entityName: String
    /// The identifier of the store holding the row; nil for a model not yet saved.
    public let storeIdentifier: String?

    init(_ objectID: NSManagedObjectID) {
        uri = objectID.uriRepresentation()
        entityName = objectID.entity.name ?? ""
        storeIdentifier = objectID.isTemporaryID ? nil : objectID.persistentStore?.identifier
    }

    /// A placeholder for a model outside any context: unique to the model object.
    init(unattached model: AnyObject) {
        let name = String(describing: type(of: model))
        uri = URL(string: "x-swiftdata:///\(name)/u\(UInt(bitPattern: ObjectIdentifier(model).hashValue))")!
        entityName = name
        storeIdentifier = nil
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.uri.absoluteString < rhs.uri.absoluteString }

    /// The managed object ID this identifier names, for `coordinator`; nil when none of its
    /// stores has it.
    func objectID(in coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectID? {
        coordinator.managedObjectID(forURIRepresentation: uri)
    }
}
