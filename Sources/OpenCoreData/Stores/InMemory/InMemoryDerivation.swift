/// Derived attributes in the in-memory store: computed when a save's rows are written, from the
/// rows as the save leaves them, as the SQLite store's triggers compute them.
extension InMemoryWriter {
    func derivedValues() throws -> [DerivedValue] {
        var results: [DerivedValue] = []
        for entity in entities {
            let derived = entity.declaredProperties.compactMap { $0 as? NSDerivedAttributeDescription }
            guard !derived.isEmpty else { continue }
            let root = root(entity)
            // The entity's rows and its subentities' (which inherit the attribute).
            let numbers = Set(entity.layout!.hierarchyNumbers.map(Int32.init))
            for (key, row) in tables[root] ?? [:] where numbers.contains(row.entityNumber) {
                guard var values = row.values else { continue }
                var changed = false
                for attribute in derived {
                    guard let expression = attribute.derivationExpression else { continue }
                    let value: SlotValue
                    if case .function("now", _) = expression.storage {
                        // The time of the save that inserted or updated the row, as Core Data's
                        // trigger on `Z_OPT` records it; other saves leave it.
                        guard written.contains(InMemoryRowKey(root: root, primaryKey: key)) else { continue }
                        value = .date(Date())
                    } else {
                        let computed = PredicateEvaluator.value(of: expression, object: InMemoryRowReading(row: row, writer: self), bindings: nil)
                        let slot = SlotValue(attributeValue: computed, for: attribute)
                        if case .invalid = slot { value = .null } else { value = slot }
                    }
                    guard !value.sameValue(as: values[attribute.slot]) else { continue }
                    values[attribute.slot] = value
                    changed = true
                    results.append(DerivedValue(entityNumber: row.entityNumber, primaryKey: key, slot: attribute.slot, value: value))
                }
                if changed { tables[root]![key]!.values = values }
            }
        }
        return results
    }
}

/// A row of the in-memory store by its hierarchy's table and key.
struct InMemoryRowKey: Hashable {
    let root: Int32
    let primaryKey: Int64
}

/// A row of a save in progress as an expression reads it: attributes as their values, a to-one
/// as the destination's row, a to-many as the rows it relates.
private struct InMemoryRowReading: KeyValueReadable {
    let row: StoreRow
    let writer: InMemoryWriter

    func readValue(forKey key: String) -> Any? {
        let entity = writer.entities[Int(row.entityNumber) - 1]
        guard let property = entity.propertiesByName[key], let values = row.values else { return nil }
        guard let relationship = property as? NSRelationshipDescription else {
            return values[property.slot].publicValue(for: property as? NSAttributeDescription)
        }
        let destination = relationship.destinationEntity!
        let destinationRows = writer.tables[writer.root(destination)] ?? [:]
        if !relationship.isToMany {
            guard case .reference(let reference) = values[relationship.slot], let target = destinationRows[reference.primaryKey] else { return nil }
            return InMemoryRowReading(row: target, writer: writer)
        }
        var keys: [Int64] = []
        if let inverse = relationship.inverseRelationship, !inverse.isToMany {
            keys = destinationRows.values.compactMap { candidate in
                guard case .reference(let reference) = candidate.values?[inverse.slot], reference.primaryKey == row.primaryKey else { return nil }
                return candidate.primaryKey
            }
        } else if let join = relationship.joinTable {
            keys = (writer.joins[join.name] ?? []).compactMap { pair in
                join.isOwner ? (pair.owner == row.primaryKey ? pair.other : nil) : (pair.other == row.primaryKey ? pair.owner : nil)
            }
        }
        return keys.compactMap { destinationRows[$0].map { InMemoryRowReading(row: $0, writer: writer) } }
    }
}
