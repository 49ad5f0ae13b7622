import Foundation

/// A stored row seen through key-value access, so predicates and sort descriptors evaluate on it:
/// how a store that does not compile predicates (the in-memory one) evaluates them, through the
/// store's own `row(of:primaryKey:)` and `entity(number:)`.
package final class StoreRowView: NSObject {
    let row: StoreRow
    private unowned let model: NSManagedObjectModel
    private unowned let store: any RowReadingStore

    package init(row: StoreRow, model: NSManagedObjectModel, store: any RowReadingStore) {
        self.row = row
        self.model = model
        self.store = store
    }

    /// The row's identity, equal to the `NSManagedObjectID.key` of its object, so predicates
    /// comparing a relationship with an object (`owner == %@`) match rows.
    var objectKey: ObjectKey {
        let entity = model.entitiesInStoreOrder[Int(row.entityNumber) - 1]
        return ObjectKey(
            store: ObjectIdentifier(store), root: Int32(entity.layout!.root.layout!.entityNumber),
            primaryKey: row.primaryKey, temporary: nil)
    }

    /// The value of `key` as a predicate reads it: attributes as `storedValue(forKey:)`, a to-one
    /// relationship as the destination's row (so key paths go through it), a to-many one as the
    /// rows it relates.
    func value(forPredicateKey key: String) -> Any? {
        let entity = model.entitiesInStoreOrder[Int(row.entityNumber) - 1]
        guard let property = entity.propertiesByName[key], let values = row.values else { return nil }
        switch values[property.slot] {
        case .reference(let reference):
            guard let destination = store.entity(number: reference.entityNumber),
                let row = try? store.row(of: destination, primaryKey: reference.primaryKey)
            else { return nil }
            return StoreRowView(row: row, model: model, store: store)
        case .toOne(let object): return object
        case .toMany(let set): return set.objects
        case .unloaded:
            // A to-many: the rows it relates, read from the store (a stored row holds none).
            guard let relationship = property as? NSRelationshipDescription, relationship.isToMany,
                let related = try? store.relatedRows(relationship, ofPrimaryKeys: [row.primaryKey])
            else { return nil }
            return related.map { StoreRowView(row: $0.row, model: model, store: store) }
        default: return storedValue(forKey: key)
        }
    }

    func storedValue(forKey key: String) -> Any? {
        let entity = model.entitiesInStoreOrder[Int(row.entityNumber) - 1]
        guard let property = entity.propertiesByName[key], let values = row.values else { return nil }
        return values[property.slot].publicValue(for: property as? NSAttributeDescription)
    }
}

extension StoreRowView {
    /// `rows` that `predicate` selects, evaluated in memory, for a store that cannot compile it.
    package static func filter(_ rows: [StoreRow], _ predicate: NSPredicate, store: any RowReadingStore) -> [StoreRow] {
        let model = store.persistentStoreCoordinator!.managedObjectModel
        return rows.filter { predicate.evaluate(with: StoreRowView(row: $0, model: model, store: store)) }
    }

    /// `rows` in the order of `descriptors`, evaluated in memory; equal rows by primary key.
    package static func sort(_ rows: [StoreRow], by descriptors: [NSSortDescriptor], store: any RowReadingStore) -> [StoreRow] {
        guard !descriptors.isEmpty else { return rows }
        let model = store.persistentStoreCoordinator!.managedObjectModel
        let views = rows.map { StoreRowView(row: $0, model: model, store: store) }
        return views.sorted { a, b in
            let order = descriptors.compare(a, b)
            return order == .orderedSame ? a.row.primaryKey < b.row.primaryKey : order == .orderedAscending
        }.map(\.row)
    }
}
