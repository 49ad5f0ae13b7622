import Foundation
import OpenCoreData

/// A custom store written only against Core Data's public API, as an app or a library writes
/// one: an `NSIncrementalStore` that keeps records in a dictionary by string reference, and answers
/// fetches by evaluating the request against the objects it makes. Nothing here is OpenCoreData's
/// own: the same file compiles against Apple's Core Data.
public final class KeyValueStore: NSIncrementalStore, @unchecked Sendable {
    public static let storeType = "KeyValueStore"

    /// One object's stored values: attributes by name, to-one destinations as references, to-many
    /// destinations as arrays of references.
    struct Record {
        var attributes: [String: Any] = [:]
        var toOne: [String: String] = [:]
        var toMany: [String: [String]] = [:]
        var version: UInt64 = 1
    }

    private let lock = NSLock()
    private var records: [String: [String: Record]] = [:]
    /// What the store was asked, for the tests to see requests as the store saw them.
    public private(set) var fetchRequestsSeen: [NSFetchRequest<NSFetchRequestResult>] = []
    public private(set) var saveRequestsSeen: [NSSaveChangesRequest] = []
    public private(set) var registered: [NSManagedObjectID] = []

    override public func loadMetadata() throws {
        metadata = [NSStoreTypeKey: Self.storeType, NSStoreUUIDKey: UUID().uuidString]
    }

    override public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        switch request.requestType {
        case .fetchRequestType:
            let fetch = request as! NSFetchRequest<NSFetchRequestResult>
            lock.withLock { fetchRequestsSeen.append(fetch) }
            return try answer(fetch, in: context!)
        case .saveRequestType:
            let save = request as! NSSaveChangesRequest
            lock.withLock { saveRequestsSeen.append(save) }
            try write(save)
            return [Any]()
        default:
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError)
        }
    }

    private func answer(_ fetch: NSFetchRequest<NSFetchRequestResult>, in context: NSManagedObjectContext) throws -> Any {
        let entity = fetch.entity!
        let names = [entity.name!] + (fetch.includesSubentities ? entity.subentities.map { $0.name! } : [])
        var ids: [NSManagedObjectID] = []
        lock.withLock {
            for name in names {
                let destination = entity.managedObjectModel.entitiesByName[name]!
                for reference in (records[name] ?? [:]).keys.sorted() {
                    ids.append(newObjectID(for: destination, referenceObject: reference))
                }
            }
        }
        var objects = ids.map { context.object(with: $0) }
        if let predicate = fetch.predicate { objects = objects.filter { predicate.evaluate(with: $0) } }
        if let descriptors = fetch.sortDescriptors, !descriptors.isEmpty {
            objects.sort { a, b in
                for descriptor in descriptors {
                    let order = descriptor.compare(a, to: b)
                    if order != .orderedSame { return order == .orderedAscending }
                }
                return false
            }
        }
        if fetch.fetchOffset > 0 { objects = Array(objects.dropFirst(fetch.fetchOffset)) }
        if fetch.fetchLimit > 0 { objects = Array(objects.prefix(fetch.fetchLimit)) }
        switch fetch.resultType {
        case .managedObjectResultType: return objects
        case .managedObjectIDResultType: return objects.map(\.objectID)
        case .countResultType: return [objects.count]
        default: throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError)
        }
    }

    private func reference(of object: NSManagedObject) -> String { referenceObject(for: object.objectID) as! String }

    private func record(of object: NSManagedObject, version: UInt64) -> Record {
        var record = Record(version: version)
        for (name, _) in object.entity.attributesByName {
            if let value = object.value(forKey: name) { record.attributes[name] = value }
        }
        for (name, relationship) in object.entity.relationshipsByName {
            if relationship.isOrdered {
                let members = (object.value(forKey: name) as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject } ?? []
                record.toMany[name] = members.map(reference(of:))
            } else if relationship.isToMany {
                let members = (object.value(forKey: name) as? Set<NSManagedObject>) ?? []
                record.toMany[name] = members.map(reference(of:)).sorted()
            } else if let destination = object.value(forKey: name) as? NSManagedObject {
                record.toOne[name] = reference(of: destination)
            }
        }
        return record
    }

    private func write(_ save: NSSaveChangesRequest) throws {
        lock.lock()
        defer { lock.unlock() }
        for object in save.insertedObjects ?? [] {
            records[object.entity.name!, default: [:]][reference(of: object)] = record(of: object, version: 1)
        }
        for object in save.updatedObjects ?? [] {
            let version = (records[object.entity.name!]?[reference(of: object)]?.version ?? 0) + 1
            records[object.entity.name!, default: [:]][reference(of: object)] = record(of: object, version: version)
        }
        for object in save.deletedObjects ?? [] {
            records[object.entity.name!]?[reference(of: object)] = nil
        }
    }

    override public func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        let reference = referenceObject(for: objectID) as! String
        guard let record = lock.withLock({ records[objectID.entity.name!]?[reference] }) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError)
        }
        var values = record.attributes
        for (name, destination) in record.toOne {
            let entity = objectID.entity.relationshipsByName[name]!.destinationEntity!
            values[name] = newObjectID(for: entity, referenceObject: destination)
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: record.version)
    }

    override public func newValue(
        forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
        with context: NSManagedObjectContext?
    ) throws -> Any {
        let reference = referenceObject(for: objectID) as! String
        let record = lock.withLock { records[objectID.entity.name!]?[reference] }
        let destination = relationship.destinationEntity!
        if relationship.isToMany {
            return (record?.toMany[relationship.name] ?? []).map { newObjectID(for: destination, referenceObject: $0) }
        }
        return record?.toOne[relationship.name].map { newObjectID(for: destination, referenceObject: $0) } ?? NSNull()
    }

    override public func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        array.map { newObjectID(for: $0.entity, referenceObject: UUID().uuidString) }
    }

    override public func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {
        lock.withLock { registered += objectIDs }
    }
}
