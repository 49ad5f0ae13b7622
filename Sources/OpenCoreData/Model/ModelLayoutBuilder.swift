/// Computes, once per model, what Core Data derives from it: entity numbers and slots
/// (docs/sqlite-format.md §2.1). The tables those numbers go into are `RelationalLayoutBuilder`'s.
package enum ModelLayoutBuilder {
    /// Roots sorted by name, each hierarchy walked depth-first, pre-order, siblings by name.
    /// A loop with its own stack rather than recursion, so that a deep hierarchy cannot overflow
    /// the thread's stack.
    static func storeOrder(of entities: [NSEntityDescription]) -> [NSEntityDescription] {
        var ordered: [NSEntityDescription] = []
        var pending = Array(sortedByName(entities.filter { $0.superentity == nil }).reversed())
        while let entity = pending.popLast() {
            ordered.append(entity)
            pending += sortedByName(entity.subentities).reversed()
        }
        return ordered
    }

    static func buildLayout(for entity: NSEntityDescription, number: Int) {
        let properties = entity.properties
        for (slot, property) in properties.enumerated() {
            // Inherited properties are the superentity's own objects; their slot is already set
            // and equal, because inherited properties come first in the same order.
            property.slot = slot
            property.entity = property.entity ?? entity
        }
        var root = entity
        while let parent = root.superentity { root = parent }
        entity.layout = EntityLayout(
            properties: properties, entityNumber: number, root: root,
            versionHash: VersionHasher.hash(of: entity))
    }

    /// Sets each entity's `hierarchyNumbers`: its own number and its descendants'. Store order is
    /// depth-first and pre-order, so an entity and its descendants are numbered consecutively;
    /// counting each entity's descendants from the leaves up gives every range in one pass.
    static func assignHierarchyNumbers(_ ordered: [NSEntityDescription]) {
        var sizes = [ObjectIdentifier: Int]()
        for entity in ordered.reversed() {
            let size = 1 + entity.subentities.reduce(0) { $0 + (sizes[ObjectIdentifier($1)] ?? 0) }
            sizes[ObjectIdentifier(entity)] = size
            let first = entity.layout!.entityNumber
            entity.layout!.hierarchyNumbers = Array(first..<(first + size))
        }
    }

    /// Every entity below `entity`, depth-first; a loop, like `storeOrder`, not recursion.
    package static func descendants(of entity: NSEntityDescription) -> [NSEntityDescription] {
        var found: [NSEntityDescription] = []
        var pending = Array(entity.subentities.reversed())
        while let next = pending.popLast() {
            found.append(next)
            pending += next.subentities.reversed()
        }
        return found
    }

    static func sortedByName<T>(_ items: [T]) -> [T] {
        items.sorted { a, b in
            let x = (a as? NSEntityDescription)?.name ?? (a as? NSPropertyDescription)?.name ?? ""
            let y = (b as? NSEntityDescription)?.name ?? (b as? NSPropertyDescription)?.name ?? ""
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }
    }
}
