/// Where one slot of a row being written goes in a SQL store's table: an attribute's column, a
/// to-one's key column, or the column of its destination's entity number. Both SQL stores write
/// an entity's rows through the same list, made once per entity and save.
package struct StoreColumnWrite {
    package enum Kind { case attribute(NSAttributeDescription), foreignKey, entityNumber }
    package let slot: Int
    package let column: String
    /// For a composite's leaf (`.attribute` of the leaf), the element names down to its value in
    /// the slot's dictionary; empty for every other column.
    package var path: [String] = []
    package let kind: Kind

    /// Whether binding the column runs a value transformer (the app's code, kept on its thread).
    package var bindsTransformable: Bool {
        if case .attribute(let attribute) = kind { return attribute.attributeType == .transformableAttributeType }
        return false
    }

    /// The value this column takes from a row's slot: the slot itself, or a composite leaf's value.
    package func value(of slot: SlotValue) -> SlotValue {
        guard !path.isEmpty, case .attribute(let leaf) = kind else { return slot }
        guard let value = CompositeValue.value(at: path, in: slot.publicValue(for: nil)) else { return .null }
        return SlotValue(attributeValue: value, for: leaf)
    }

    /// The columns of `attributes`, in their order: one per attribute, one per composite leaf.
    package static func plan(for attributes: [NSAttributeDescription]) -> [StoreColumnWrite] {
        attributes.flatMap { attribute in
            attribute.storedColumns.map {
                StoreColumnWrite(slot: attribute.slot, column: $0.column, path: $0.path, kind: .attribute($0.attribute))
            }
        }
    }

    /// The columns a row of `entity` writes, in its slots' order.
    package static func plan(for entity: NSEntityDescription) -> [StoreColumnWrite] {
        var plan: [StoreColumnWrite] = []
        // A derived attribute's column is the store's to compute (its triggers): a row written
        // whole would put back the object's older value.
        for property in entity.properties where !property.isTransient && !(property is NSDerivedAttributeDescription) {
            if let composite = property as? NSCompositeAttributeDescription {
                plan += Self.plan(for: [composite])
                continue
            }
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
