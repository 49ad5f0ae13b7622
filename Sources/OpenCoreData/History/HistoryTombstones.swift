/// Which attribute values a delete preserves in the history (`preservesValueInHistoryOnDeletion`),
/// and so how many tombstone columns a store's history has.
package enum HistoryTombstones {
    /// One preserved value: a whole attribute's, or one leaf of a composite's.
    package struct Column {
        /// The tombstone's key path: the attribute's name, or the composite's and its elements'
        /// (`address.city`), which the tombstone dictionary nests as Core Data's does.
        package let path: [String]
        /// The attribute (or composite leaf) whose value the column holds.
        package let attribute: NSAttributeDescription
        /// The column the value is copied from.
        package let column: String
    }

    /// `entity`'s preserved values, in the order of its tombstone columns: the superentity's
    /// first, each entity's by attribute name, a composite's leaves in element order. Attributes
    /// kept outside the store (external binary storage) are not preserved, as in Core Data. A
    /// preserved composite preserves all its leaves.
    package static func columns(of entity: NSEntityDescription) -> [Column] {
        entity.inheritanceChain.flatMap { level in
            level.declaredProperties.compactMap { $0 as? NSAttributeDescription }
                .filter { !$0.isTransient && !$0.allowsExternalBinaryDataStorage }
                .sorted { $0.name < $1.name }
                .flatMap { attribute in
                    attribute.storedColumns.filter { attribute.preservesValueInHistoryOnDeletion || $0.attribute.preservesValueInHistoryOnDeletion }
                        .map { Column(path: [attribute.name] + $0.path, attribute: $0.attribute, column: $0.column) }
                }
        }
    }

    /// The number of tombstone columns: the most preserved values any entity has.
    package static func columnCount(for entities: [NSEntityDescription]) -> Int {
        entities.map { columns(of: $0).count }.max() ?? 0
    }

    /// Adds a preserved value to a tombstone being built, nesting a composite leaf's.
    package static func add(_ value: Any, for column: Column, to tombstone: inout [String: Any]) {
        tombstone = CompositeValue.setting(value, at: column.path[...], in: tombstone)
    }
}
