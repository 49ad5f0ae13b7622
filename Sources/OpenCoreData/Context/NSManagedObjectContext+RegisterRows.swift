extension NSManagedObjectContext {
    /// The context's objects for a fetch's rows, in order: registered ones as they are (given the
    /// row's values when they lack them), new ones created and registered.
    ///
    /// With `filling`, a new object takes the row's values at once (and `awakeFromFetch` runs),
    /// instead of becoming a fault that carries them until it is read. This is the loop a
    /// million-row fetch spends its time in: the hierarchy's registry table is found once, each
    /// row's values move into their object without being copied, and the objects are created
    /// without going through a per-row closure.
    func registerRows(
        _ rows: consuming [StoreRow], store: NSPersistentStore, filling: Bool, refresh: Bool
    ) -> [NSManagedObject] {
        var fetched: [NSManagedObject] = []
        fetched.reserveCapacity(rows.count)
        var lookup = EntityLookup(store: store)
        var table: PrimaryKeyTable?
        var tableRoot: Int32 = -1
        var added = 0
        rows.withUnsafeMutableBufferPointer { rows in
            for index in rows.indices {
                let entity = lookup.entity(rows[index].entityNumber)
                let primaryKey = rows[index].primaryKey
                guard primaryKey > 0 else {
                    // Not a key a table holds (a store's own numbering): the general path.
                    fetched.append(
                        register(
                            row: rows[index], entity: entity, objectClass: lookup.objectClass, root: lookup.rootNumber,
                            store: store, refresh: refresh))
                    continue
                }
                if lookup.rootNumber != tableRoot {
                    table = registry.pagedTable(store: store, root: lookup.rootNumber)
                    tableRoot = lookup.rootNumber
                }
                let slot = table!.slot(for: primaryKey)
                if let object = slot.pointee {
                    update(object, from: &rows[index], refresh: refresh)
                    fetched.append(object)
                    continue
                }
                let object = NSManagedObject.materialize(
                    entity: entity, store: store, primaryKey: primaryKey, objectClass: lookup.objectClass)
                object.version = rows[index].version
                object.contextToken = token
                let values = rows[index].values.take()
                slot.pointee = object
                added += 1
                fetched.append(object)
                if filling, let values {
                    object.slots = values
                    object.committed = values
                    object.faultState = .filled
                    object.awakeFromFetch()
                } else {
                    object.cachedRow = values
                }
            }
        }
        registry.didRegister(added)
        return fetched
    }

    /// Gives an already registered object what a newly fetched row of it brings: its values when
    /// it is a fault without them, or, with `refresh`, the row's values over unchanged ones.
    func update(_ object: NSManagedObject, from row: inout StoreRow, refresh: Bool) {
        if object.isFault, object.cachedRow == nil, let values = row.values.take() {
            object.cachedRow = values
            object.version = row.version
        } else if refresh, !object.hasChanges, let values = row.values.take() {
            object.slots = values
            object.committed = values
            object.version = row.version
        }
    }
}
