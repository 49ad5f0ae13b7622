import Foundation
import OpenCoreData

/// A custom atomic store written only against Core Data's public API: every object in one JSON
/// file, read whole when the store is added and written whole at each save.
final class JSONFileStore: NSAtomicStore, @unchecked Sendable {
    static let storeType = "JSONFileStore"

    override func load() throws {
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
            for (key, value) in object["attributes"] as? [String: Any] ?? [:] { node.setValue(value, forKey: key) }
            nodes[reference] = node
        }
        for object in objects {
            guard let reference = object["reference"] as? String, let node = nodes[reference] else { continue }
            for (key, destination) in object["toOne"] as? [String: String] ?? [:] { node.setValue(nodes[destination], forKey: key) }
            for (key, members) in object["toMany"] as? [String: [String]] ?? [:] {
                node.setValue(NSSet(array: members.compactMap { nodes[$0] }), forKey: key)
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    override func save() throws {
        var objects: [[String: Any]] = []
        for node in cacheNodes() {
            var attributes: [String: Any] = [:]
            var toOne: [String: String] = [:]
            var toMany: [String: [String]] = [:]
            for (name, relationship) in node.objectID.entity.relationshipsByName {
                if relationship.isToMany {
                    let members = (node.value(forKey: name) as? NSSet) ?? NSSet()
                    toMany[name] = members.compactMap { ($0 as? NSAtomicStoreCacheNode).map(reference) }.sorted()
                } else if let destination = node.value(forKey: name) as? NSAtomicStoreCacheNode {
                    toOne[name] = reference(destination)
                }
            }
            for (name, _) in node.objectID.entity.attributesByName {
                if let value = node.value(forKey: name) { attributes[name] = value }
            }
            objects.append([
                "entity": node.objectID.entity.name!, "reference": reference(node), "attributes": attributes, "toOne": toOne,
                "toMany": toMany,
            ])
        }
        let file: [String: Any] = ["uuid": identifier!, "objects": objects]
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url!, options: .atomic)
    }

    private func reference(_ node: NSAtomicStoreCacheNode) -> String { referenceObject(for: node.objectID) as! String }

    override func newReferenceObject(for managedObject: NSManagedObject) -> Any { UUID().uuidString }
}
