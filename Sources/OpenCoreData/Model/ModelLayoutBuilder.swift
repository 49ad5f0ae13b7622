/// Computes, once per model, what Core Data derives from it: entity numbers, slots, table and column
/// names, join tables (docs/sqlite-format.md §2.1, §3, §5).
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

    /// Names every column of the hierarchy rooted at `root`, in the order Core Data declares them:
    /// integers (attributes, then to-one keys), floats and timestamps, decimals, strings, blobs.
    static func assignColumns(root: NSEntityDescription) {
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        var columns: [(group: Int, order: Int, name: String, type: String)] = []
        var order = 0
        func uniqueName(_ base: String) -> String {
            var name = base
            var suffix = 1
            while used.contains(name) {
                name = base + String(suffix)
                suffix += 1
            }
            used.insert(name)
            return name
        }
        for (entityIndex, entity) in storeOrder(of: [root] + descendants(of: root)).enumerated() {
            for property in sortedByName(entity.declaredProperties) where !property.isTransient {
                // Within a type group, an entity's attributes come before its to-one keys, and a
                // superentity's columns before its subentities'.
                order = entityIndex * 1_000_000 + (property is NSRelationshipDescription ? 500_000 : 0) + order % 1000 + 1
                if let attribute = property as? NSAttributeDescription {
                    let name = uniqueName("Z" + attribute.name.uppercased())
                    attribute.columnName = name
                    let type = attribute.attributeType.sqlColumnType
                    columns.append((typeGroup(type), order, name, type))
                } else if let relationship = property as? NSRelationshipDescription {
                    assignRelationshipStorage(relationship, entity: entity, uniqueName: uniqueName) {
                        columns.append((0, order, $0, "INTEGER"))
                    }
                }
            }
        }
        root.layout!.tableColumns = columns.sorted { ($0.group, $0.order) < ($1.group, $1.order) }
            .map { ($0.name, $0.type) }
    }

    private static func assignRelationshipStorage(
        _ relationship: NSRelationshipDescription, entity: NSEntityDescription,
        uniqueName: (String) -> String, addColumn: (String) -> Void
    ) {
        let inverse = relationship.inverseRelationship
        if !relationship.isToMany {
            let name = uniqueName("Z" + relationship.name.uppercased())
            relationship.columnName = name
            addColumn(name)
            if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                let entityColumn = uniqueName("Z\(destination.layout!.entityNumber)_" + relationship.name.uppercased())
                relationship.entityColumnName = entityColumn
                addColumn(entityColumn)
            }
            if let inverse, inverse.isToMany, inverse.isOrdered {
                let orderColumn = uniqueName("Z_FOK_" + relationship.name.uppercased())
                relationship.orderColumnName = orderColumn
                addColumn(orderColumn)
            }
        } else if inverse == nil || inverse!.isToMany {
            relationship.joinTable = joinTable(for: relationship, entity: entity)
        }
    }

    /// Core Data puts a many-to-many in a table named after the side whose entity number is lower
    /// (docs/sqlite-format.md §5.2): `Z_<n><REL>(Z_<n><INVERSE>, Z_<m><REL>)`.
    private static func joinTable(for relationship: NSRelationshipDescription, entity: NSEntityDescription) -> JoinTable {
        let myNumber = entity.layout!.entityNumber
        let inverse = relationship.inverseRelationship
        let otherEntity = inverse?.entity ?? relationship.destinationEntity!
        let otherNumber = otherEntity.layout!.entityNumber
        let isOwner =
            inverse == nil || myNumber < otherNumber
            || (myNumber == otherNumber && relationship.name.utf8.lexicographicallyPrecedes(inverse!.name.utf8))
            || relationship === inverse
        let inverseName = (inverse?.name ?? (entity.name ?? "")).uppercased()
        let myColumn = "Z_\(myNumber)" + inverseName
        let otherColumn =
            relationship === inverse ? "REFLEXIVE" : "Z_\(otherNumber)" + relationship.name.uppercased()
        let ownerNumber = isOwner ? myNumber : otherNumber
        let ownerRelationship = isOwner ? relationship.name : (inverse?.name ?? relationship.name)
        return JoinTable(
            name: "Z_\(ownerNumber)" + ownerRelationship.uppercased(),
            sourceColumn: myColumn, destinationColumn: otherColumn, isOwner: isOwner)
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

    private static func typeGroup(_ type: String) -> Int {
        switch type {
        case "INTEGER": 0
        case "FLOAT", "TIMESTAMP": 2
        case "DECIMAL": 3
        case "VARCHAR": 4
        default: 5
        }
    }

    private static func sortedByName<T>(_ items: [T]) -> [T] {
        items.sorted { a, b in
            let x = (a as? NSEntityDescription)?.name ?? (a as? NSPropertyDescription)?.name ?? ""
            let y = (b as? NSEntityDescription)?.name ?? (b as? NSPropertyDescription)?.name ?? ""
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }
    }
}
