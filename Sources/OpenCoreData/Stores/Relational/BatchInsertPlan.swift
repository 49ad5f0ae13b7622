import Foundation

/// The shape of an `NSBatchInsertRequest`'s INSERTs in either SQL store: the hierarchy's table,
/// its columns (`Z_PK`, `Z_ENT`, `Z_OPT`, then the request's attributes), and how many rows go to
/// one statement. Rows of an entity with uniqueness constraints go one at a time, so that each
/// row that breaks one meets the merge policy alone.
package struct BatchInsertPlan {
    package let entity: NSEntityDescription
    package let root: NSEntityDescription
    package let table: String
    package let attributes: [NSAttributeDescription]
    /// The attributes' columns after `Z_PK`, `Z_ENT` and `Z_OPT`: one per attribute, one per leaf
    /// of a composite.
    package let writes: [StoreColumnWrite]
    package let columns: [String]
    package let constraints: [[NSPropertyDescription]]
    package let rowsPerStatement: Int
    package let wantsIDs: Bool

    /// - Parameters:
    ///   - request: The batch insert.
    ///   - maxRows: The most rows the store puts in one statement.
    ///   - maxParameters: The most parameters the store's SQL binds to one statement.
    package init(_ request: StoreBatchInsert, maxRows: Int, maxParameters: Int) {
        entity = request.entity
        root = entity.layout!.root
        table = root.tableName
        attributes = request.rows.attributes
        writes = StoreColumnWrite.plan(for: attributes)
        columns = ["Z_PK", "Z_ENT", "Z_OPT"] + writes.map(\.column)
        constraints = entity.storedUniquenessConstraints
        // A row binds its key and its columns.
        rowsPerStatement = constraints.isEmpty ? max(1, min(maxRows, maxParameters / (writes.count + 1))) : 1
        wantsIDs = request.result == .objectIDs
    }
}
