/// Which attributes a delete preserves in the history (`preservesValueInHistoryOnDeletion`), and
/// so how many tombstone columns a store's history has.
package enum HistoryTombstones {
    /// `entity`'s preserved attributes, in the order of its tombstone columns: the superentity's
    /// first, each entity's by name. Attributes kept outside the store (external binary
    /// storage) are not preserved, as in Core Data.
    package static func attributes(of entity: NSEntityDescription) -> [NSAttributeDescription] {
        entity.inheritanceChain.flatMap { level in
            level.declaredProperties.compactMap { $0 as? NSAttributeDescription }
                .filter { $0.preservesValueInHistoryOnDeletion && !$0.allowsExternalBinaryDataStorage && !$0.isTransient }
                .sorted { $0.name < $1.name }
        }
    }

    /// The number of tombstone columns: the most preserved attributes any entity has.
    package static func columnCount(for entities: [NSEntityDescription]) -> Int {
        entities.map { attributes(of: $0).count }.max() ?? 0
    }
}
