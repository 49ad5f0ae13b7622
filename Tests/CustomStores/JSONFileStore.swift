import Foundation
import OpenCoreData

/// A custom atomic store written only against Core Data's public API: every object in one JSON
/// file, read whole when the store is added and written whole at each save.
public final class JSONFileStore: NSAtomicStore, @unchecked Sendable {
    public static let storeType = "JSONFileStore"

    override public func load() throws {
        var uuid = UUID().uuidString
        var objects: [[String: Any]] = []
        if let url, let data = try? Data(contentsOf: url) {
            let file = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            uuid = file["uuid"] as? String ?? uuid
            objects = file["objects"] as? [[String: Any]] ?? []
        }
        metadata = [NSStoreTypeKey: Self.storeType, NSStoreUUIDKey: uuid]
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        // Nodes first, then the relationships between them.
        var nodes: [String: NSAtomicStoreCacheNode] = [:]
        for object in objects {
            guard let entityName = object["entity"] as? String, let reference = object["reference"] as? String,
                let entity = model.entitiesByName[entityName]
            else { continue }
            let node = NSAtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: reference))
            for (key, value) in object["attributes"] as? [String: Any] ?? [:] {
                guard let attribute = entity.attributesByName[key] else { continue }
                node.setValue(Self.decode(value, attribute.attributeType), forKey: key)
            }
            nodes[reference] = node
        }
        for object in objects {
            guard let reference = object["reference"] as? String, let node = nodes[reference] else { continue }
            for (key, destination) in object["toOne"] as? [String: String] ?? [:] { node.setValue(nodes[destination], forKey: key) }
            for (key, members) in object["toMany"] as? [String: [String]] ?? [:] {
                let destinations = members.compactMap { nodes[$0] }
                let ordered = node.objectID.entity.relationshipsByName[key]?.isOrdered == true
                node.setValue(ordered ? NSOrderedSet(array: destinations) : NSSet(array: destinations), forKey: key)
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    override public func save() throws {
        var objects: [[String: Any]] = []
        for node in cacheNodes() {
            var attributes: [String: Any] = [:]
            var toOne: [String: String] = [:]
            var toMany: [String: [String]] = [:]
            for (name, relationship) in node.objectID.entity.relationshipsByName {
                if relationship.isOrdered {
                    let members = (node.value(forKey: name) as? NSOrderedSet)?.array ?? []
                    toMany[name] = members.compactMap { ($0 as? NSAtomicStoreCacheNode).map(reference) }
                } else if relationship.isToMany {
                    let members = (node.value(forKey: name) as? NSSet) ?? NSSet()
                    toMany[name] = members.compactMap { ($0 as? NSAtomicStoreCacheNode).map(reference) }.sorted()
                } else if let destination = node.value(forKey: name) as? NSAtomicStoreCacheNode {
                    toOne[name] = reference(destination)
                }
            }
            for (name, attribute) in node.objectID.entity.attributesByName {
                if let value = node.value(forKey: name) { attributes[name] = Self.encode(value, attribute.attributeType) }
            }
            objects.append([
                "entity": node.objectID.entity.name!, "reference": reference(node), "attributes": attributes, "toOne": toOne,
                "toMany": toMany,
            ])
        }
        let file: [String: Any] = ["uuid": identifier!, "objects": objects]
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url!, options: .atomic)
    }

    /// A value as JSON holds it, by the attribute's type.
    static func encode(_ value: Any, _ type: NSAttributeType) -> Any {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return (value as? NSNumber).map { String($0.int64Value) } ?? "\(value)"
        case .doubleAttributeType, .floatAttributeType: return (value as? NSNumber)?.doubleValue ?? 0
        case .booleanAttributeType: return (value as? Bool) ?? (value as? NSNumber)?.boolValue ?? false
        case .dateAttributeType: return (value as? Date)?.timeIntervalSinceReferenceDate ?? 0
        case .binaryDataAttributeType: return (value as? Data)?.base64EncodedString() ?? ""
        case .UUIDAttributeType: return (value as? UUID)?.uuidString ?? ""
        case .URIAttributeType: return (value as? URL)?.absoluteString ?? ""
        case .decimalAttributeType: return (value as? Decimal).map { "\($0)" } ?? "0"
        default: return "\(value)"
        }
    }

    /// A value read from JSON, as the attribute's type wants it.
    static func decode(_ json: Any, _ type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: return (json as? String).flatMap { Int16($0) }
        case .integer32AttributeType: return (json as? String).flatMap { Int32($0) }
        case .integer64AttributeType: return (json as? String).flatMap { Int64($0) }
        case .doubleAttributeType: return (json as? NSNumber)?.doubleValue
        case .floatAttributeType: return (json as? NSNumber)?.floatValue
        case .booleanAttributeType: return (json as? Bool) ?? (json as? NSNumber)?.boolValue
        case .dateAttributeType: return (json as? NSNumber).map { Date(timeIntervalSinceReferenceDate: $0.doubleValue) }
        case .binaryDataAttributeType: return (json as? String).flatMap { Data(base64Encoded: $0) }
        case .UUIDAttributeType: return (json as? String).flatMap(UUID.init(uuidString:))
        case .URIAttributeType: return (json as? String).flatMap(URL.init(string:))
        case .decimalAttributeType: return (json as? String).flatMap { Decimal(string: $0) }
        default: return json as? String
        }
    }

    private func reference(_ node: NSAtomicStoreCacheNode) -> String { referenceObject(for: node.objectID) as! String }

    override public func newReferenceObject(for managedObject: NSManagedObject) -> Any { UUID().uuidString }
}
