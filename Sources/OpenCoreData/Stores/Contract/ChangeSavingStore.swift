/// A store that saves: the write half of the contract, and where permanent IDs come from.
package protocol ChangeSavingStore: OpenableStore {
    /// Runs `body` inside one transaction of the store: everything it writes through the writer
    /// stays if it returns, nothing if it throws.
    ///
    /// - Parameter body: The writes, given the store's writer.
    /// - Throws: What `body` throws (a `UniquenessViolation` unchanged, so that the context can
    ///   name the objects), or a Core Data error for the store's own failures.
    func save(_ body: (any StoreWriter) throws -> Void) throws
    /// Reserves `count` primary keys of `entity`'s hierarchy, for `obtainPermanentIDs(for:)`.
    ///
    /// - Parameters:
    ///   - entity: The objects' entity.
    ///   - count: How many keys.
    /// - Returns: The first key; the others follow it.
    /// - Throws: The store's errors.
    func reservePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64
}

/// The write half of a save, given to the context inside one store transaction: if the body throws,
/// nothing it wrote stays.
package protocol StoreWriter {
    /// Reserves `count` primary keys for `entity`'s hierarchy and returns the first.
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> Int64
    /// Inserts a row with version 1.
    func insert(entity: NSEntityDescription, primaryKey: Int64, values: RowValues) throws
    /// Updates a row whose version must still be `expectedVersion`; returns false on a conflict.
    func update(
        entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64, values: RowValues
    ) throws -> Bool
    /// Deletes a row whose version must still be `expectedVersion`; returns false on a conflict.
    func delete(entity: NSEntityDescription, primaryKey: Int64, expectedVersion: Int64) throws -> Bool
    /// The row as it is now inside the transaction, for resolving a conflict.
    func currentRow(entity: NSEntityDescription, primaryKey: Int64) throws -> StoreRow?
    /// The key of a row of `entity`'s hierarchy, other than `excluding`, whose `slots` hold the
    /// same values as `values` (a uniqueness constraint's columns).
    func rowMatching(entity: NSEntityDescription, slots: [Int], values: RowValues, excluding: Int64) throws -> Int64?
    /// Records a member's position in the ordered to-many `relationship` (Core Data's store keeps
    /// it in the member's row, in the `Z_FOK_` column of its to-one inverse).
    func setOrder(in relationship: NSRelationshipDescription, member: NSEntityDescription, primaryKey: Int64, position: Int64) throws
    /// Adds or removes a pair of the many-to-many `relationship`, given from each side whose
    /// objects changed: the store keeps each pair once (Core Data's join table belongs to one side).
    func insertPair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws
    func deletePair(of relationship: NSRelationshipDescription, source: Int64, destination: Int64) throws
    /// Records `destination`'s position in `source`'s list of the ordered many-to-many
    /// `relationship`, after the pair is written (Core Data's store keeps it in the join table's
    /// `Z_FOK_` column of that side).
    func setPairOrder(of relationship: NSRelationshipDescription, source: Int64, destination: Int64, position: Int64) throws
    /// Names who writes, for the transaction's persistent history: a store that tracks history
    /// records it with the changes, and calls `recorded` with the transaction's number once
    /// written; others ignore it.
    func describeTransaction(author: String?, contextName: String?, recorded: @escaping (Int64) -> Void)
    /// The derived attribute values the store computed for the rows this transaction wrote or
    /// affected (`NSDerivedAttributeDescription`), asked once every row is written: the context
    /// gives them to its objects after the save, as Core Data does.
    func derivedValues() throws -> [DerivedValue]
}

extension StoreWriter {
    package func describeTransaction(author: String?, contextName: String?, recorded: @escaping (Int64) -> Void) {}
    package func derivedValues() throws -> [DerivedValue] { [] }
}

/// A derived attribute's value a store computed in a save, for a row of the save or one it
/// affected (a book whose page moved to another book).
package struct DerivedValue {
    /// The row's entity, by the model's number.
    package var entityNumber: Int32
    package var primaryKey: Int64
    /// The derived attribute's slot.
    package var slot: Int
    package var value: SlotValue

    package init(entityNumber: Int32, primaryKey: Int64, slot: Int, value: SlotValue) {
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
        self.slot = slot
        self.value = value
    }

    /// `values` with each row's slot once, at its last value, in the order first reported:
    /// triggers report a row again each time a change of the save touches it.
    ///
    /// - Complexity: O(n).
    package static func latest(_ values: [DerivedValue]) -> [DerivedValue] {
        struct Key: Hashable { let entity: Int32, primaryKey: Int64, slot: Int }
        var positions: [Key: Int] = [:]
        var result: [DerivedValue] = []
        for value in values {
            let key = Key(entity: value.entityNumber, primaryKey: value.primaryKey, slot: value.slot)
            if let position = positions[key] {
                result[position] = value
            } else {
                positions[key] = result.count
                result.append(value)
            }
        }
        return result
    }
}

/// The stored values of one row being written, resolved to what a store keeps: attribute slots and
/// to-one references (the destination's primary key and entity number).
package struct RowValues {
    package var slots: SlotRow
    /// For an update, the slots whose values changed, when the store records them (persistent
    /// history); nil when not known.
    package var changedSlots: [Int]? = nil
}
