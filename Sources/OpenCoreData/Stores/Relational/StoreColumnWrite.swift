/// Where one slot of a row being written goes in a SQL store's table: an attribute's column, a
/// to-one's key column, or the column of its destination's entity number. Both SQL stores write
/// an entity's rows through the same list, made once per entity and save.
package struct StoreColumnWrite {
    package enum Kind { case attribute(NSAttributeDescription), foreignKey, entityNumber }
    package let slot: Int
    package let column: String
    package let kind: Kind

    /// The columns a row of `entity` writes, in its slots' order.
    package static func plan(for entity: NSEntityDescription) -> [StoreColumnWrite] {
        var plan: [StoreColumnWrite] = []
        for property in entity.properties where !property.isTransient {
            guard let column = property.columnName else { continue }
            if let attribute = property as? NSAttributeDescription {
                plan.append(StoreColumnWrite(slot: property.slot, column: column, kind: .attribute(attribute)))
            } else if let relationship = property as? NSRelationshipDescription {
                plan.append(StoreColumnWrite(slot: property.slot, column: column, kind: .foreignKey))
                if let entityColumn = relationship.entityColumnName {
                    plan.append(StoreColumnWrite(slot: property.slot, column: entityColumn, kind: .entityNumber))
                }
            }
        }
        return plan
    }
}

extension NSRelationshipDescription {
    /// The SQL selecting `(Z_PK, Z_ENT)` of the destinations of the to-many relationship for one
    /// source key, bound as `parameter`, in the relationship's order; nil when no column or join
    /// table holds it.
    package func destinationKeysSQL(parameter: String) -> String? {
        let destinationTable = destinationEntity!.tableName
        if let inverse = inverseRelationship, let column = inverse.columnName {
            let order = inverse.orderColumnName.map { "\($0), " } ?? ""
            return "SELECT Z_PK, Z_ENT FROM \(destinationTable) WHERE \(column) = \(parameter) ORDER BY \(order)Z_PK"
        }
        if let join = joinTable {
            let order = join.orderColumn.map { "j.\($0), " } ?? ""
            return """
                SELECT d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destinationTable) d ON d.Z_PK = j.\(join.destinationColumn) \
                WHERE j.\(join.sourceColumn) = \(parameter) ORDER BY \(order)d.Z_PK
                """
        }
        return nil
    }
}
