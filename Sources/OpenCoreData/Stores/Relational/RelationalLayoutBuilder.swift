/// Derives a model's `RelationalLayout`: table and column names, join tables, in Core Data's order
/// (docs/sqlite-format.md §3, §5). Runs once, when the model is frozen, after entity numbers and
/// property slots are assigned.
enum RelationalLayoutBuilder {
    /// - Parameter entities: the model's entities in store order (entity number - 1 = index).
    /// - Returns: the layout of every entity's table.
    /// - Complexity: O(p log p) for p properties in the model.
    static func layout(of entities: [NSEntityDescription]) -> RelationalLayout {
        var storage: [ObjectIdentifier: RelationalLayout.Storage] = [:]
        var columnsByRoot: [ObjectIdentifier: [(name: String, type: String)]] = [:]
        for root in entities where root.superentity == nil {
            columnsByRoot[ObjectIdentifier(root)] = assignColumns(root: root, storage: &storage)
        }
        var tableNames: [String] = []
        var tableColumns: [[(name: String, type: String)]] = []
        var entityStorage: [[RelationalLayout.Storage]] = []
        for entity in entities {
            let root = entity.layout!.root
            tableNames.append("Z" + (root.name ?? "").uppercased())
            tableColumns.append(columnsByRoot[ObjectIdentifier(root)] ?? [])
            // By slot: inherited properties are the superentity's own objects, at the same slot.
            entityStorage.append(entity.properties.map { storage[ObjectIdentifier($0)] ?? .init() })
        }
        return RelationalLayout(tableNames: tableNames, tableColumns: tableColumns, storage: entityStorage)
    }

    /// Names every column of the hierarchy rooted at `root`, in the order Core Data declares them:
    /// integers (attributes, then to-one keys), floats and timestamps, decimals, strings, blobs.
    private static func assignColumns(
        root: NSEntityDescription, storage: inout [ObjectIdentifier: RelationalLayout.Storage]
    ) -> [(name: String, type: String)] {
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
        let hierarchy = ModelLayoutBuilder.storeOrder(of: [root] + ModelLayoutBuilder.descendants(of: root))
        for (entityIndex, entity) in hierarchy.enumerated() {
            for property in ModelLayoutBuilder.sortedByName(entity.declaredProperties) where !property.isTransient {
                // Within a type group, an entity's attributes come before its to-one keys, and a
                // superentity's columns before its subentities'.
                order = entityIndex * 1_000_000 + (property is NSRelationshipDescription ? 500_000 : 0) + order % 1000 + 1
                if let composite = property as? NSCompositeAttributeDescription {
                    // Core Data flattens a composite into one column per leaf, named after the
                    // leaf alone (docs/sqlite-format.md §3).
                    storage[ObjectIdentifier(composite), default: .init()].elements = composite.leaves.map { leaf in
                        let name = uniqueName("Z" + leaf.attribute.name.uppercased())
                        let type = sqlColumnType(leaf.attribute.attributeType)
                        columns.append((typeGroup(type), order, name, type))
                        return RelationalLayout.ElementColumn(path: leaf.path, attribute: leaf.attribute, column: name)
                    }
                } else if let attribute = property as? NSAttributeDescription {
                    let name = uniqueName("Z" + attribute.name.uppercased())
                    storage[ObjectIdentifier(attribute), default: .init()].column = name
                    let type = sqlColumnType(attribute.attributeType)
                    columns.append((typeGroup(type), order, name, type))
                } else if let relationship = property as? NSRelationshipDescription {
                    storage[ObjectIdentifier(relationship)] = relationshipStorage(relationship, entity: entity, uniqueName: uniqueName) {
                        columns.append((0, order, $0, "INTEGER"))
                    }
                }
            }
        }
        return columns.sorted { ($0.group, $0.order) < ($1.group, $1.order) }.map { ($0.name, $0.type) }
    }

    private static func relationshipStorage(
        _ relationship: NSRelationshipDescription, entity: NSEntityDescription,
        uniqueName: (String) -> String, addColumn: (String) -> Void
    ) -> RelationalLayout.Storage {
        var storage = RelationalLayout.Storage()
        let inverse = relationship.inverseRelationship
        if !relationship.isToMany {
            let name = uniqueName("Z" + relationship.name.uppercased())
            storage.column = name
            addColumn(name)
            if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                let entityColumn = uniqueName("Z\(destination.layout!.entityNumber)_" + relationship.name.uppercased())
                storage.entityColumn = entityColumn
                addColumn(entityColumn)
            }
            if let inverse, inverse.isToMany, inverse.isOrdered {
                let orderColumn = uniqueName("Z_FOK_" + relationship.name.uppercased())
                storage.orderColumn = orderColumn
                addColumn(orderColumn)
            }
        } else if inverse == nil || inverse!.isToMany {
            storage.joinTable = joinTable(for: relationship, entity: entity)
        }
        return storage
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
        // An ordered side keeps its positions beside the column of the keys it orders.
        func order(of column: String) -> String { column.hasPrefix("Z_") ? "Z_FOK_" + column.dropFirst(2) : "FOK_" + column }
        return JoinTable(
            name: "Z_\(ownerNumber)" + ownerRelationship.uppercased(),
            sourceColumn: myColumn, destinationColumn: otherColumn, isOwner: isOwner,
            orderColumn: relationship.isOrdered ? order(of: otherColumn) : nil,
            inverseOrderColumn: inverse.flatMap { $0 !== relationship && $0.isOrdered ? order(of: myColumn) : nil })
    }

    /// The SQL column type Core Data declares for an attribute type.
    static func sqlColumnType(_ type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .booleanAttributeType:
            "INTEGER"
        case .decimalAttributeType: "DECIMAL"
        case .doubleAttributeType, .floatAttributeType: "FLOAT"
        case .dateAttributeType: "TIMESTAMP"
        case .stringAttributeType, .URIAttributeType: "VARCHAR"
        case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType: "BLOB"
        case .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType: "BLOB"
        }
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
}
