import Foundation

/// The many-to-many tables of an in-place migration: each destination table filled from the
/// source relationship's table (or from its key column, for a to-one that became a
/// many-to-many), and kept as it is when nothing about it changed.
struct JoinTableMigration {
    /// A new table, and the `SELECT` of its two columns from an old table (named as before the
    /// migration), if its relationship existed.
    private var built: [(name: String, columns: String, select: String?, from: String?)] = []
    /// The old join tables that are replaced or dropped.
    private(set) var replacedTables: [String] = []

    init(context: InPlaceMigrationContext, destination: NSManagedObjectModel) {
        var oldTables = Set<String>()
        for entity in context.source.entitiesInStoreOrder {
            for relationship in entity.declaredProperties.compactMap({ $0 as? NSRelationshipDescription }) {
                if let join = relationship.joinTable, join.isOwner { oldTables.insert(join.name) }
            }
        }
        var kept = Set<String>()
        for entity in destination.entitiesInStoreOrder {
            for relationship in entity.declaredProperties.compactMap({ $0 as? NSRelationshipDescription }) where !relationship.isTransient {
                guard let join = relationship.joinTable, join.isOwner else { continue }
                let old = context.sourceProperty(of: relationship, in: entity) as? NSRelationshipDescription
                if let oldJoin = old?.joinTable, oldJoin.name == join.name, oldJoin.sourceColumn == join.sourceColumn,
                    oldJoin.destinationColumn == join.destinationColumn, oldJoin.orderColumns == join.orderColumns, oldTables.contains(join.name)
                {
                    kept.insert(join.name)
                    continue
                }
                let columns = "\(join.sourceColumn), \(join.destinationColumn)"
                if let oldJoin = old?.joinTable {
                    // Positions go with their pairs where both models order that side; a side
                    // that becomes ordered starts without (its pairs in key order).
                    var (filled, selected) = (columns, "SELECT \(oldJoin.sourceColumn), \(oldJoin.destinationColumn)")
                    for case let (new?, old?) in [(join.orderColumn, oldJoin.orderColumn), (join.inverseOrderColumn, oldJoin.inverseOrderColumn)] {
                        filled += ", \(new)"
                        selected += ", \(old)"
                    }
                    built.append((join.name, filled, selected, oldJoin.name))
                } else if let old, let key = old.columnName, let owner = old.entity {
                    let numbers = owner.layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
                    built.append((join.name, columns, "SELECT Z_PK, \(key)", owner.rootEntity.tableName + " WHERE \(key) IS NOT NULL AND Z_ENT IN (\(numbers))"))
                } else {
                    built.append((join.name, columns, nil, nil))
                }
            }
        }
        replacedTables = oldTables.subtracting(kept).sorted()
    }

    /// The statements that create the new tables with the DDL of a new store (from `statements`)
    /// and fill them from the old ones, read under their temporary names.
    ///
    /// - Parameters:
    ///   - statements: A new store's DDL.
    ///   - renamed: The temporary name of each old table that changes.
    ///   - insertIgnoringDuplicates: The store's `INSERT` that skips a pair already there, for a
    ///     table, its columns and the `SELECT` of its rows.
    func statements(
        from statements: [String], renamed: [String: String], insertIgnoringDuplicates: (_ table: String, _ columns: String, _ select: String) -> String
    ) -> [String] {
        var result: [String] = []
        for table in built {
            result.append(statements.first { $0.hasPrefix("CREATE TABLE \(table.name) (") }!)
            guard let select = table.select, var from = table.from else { continue }
            let source = String(from.prefix { $0 != " " })
            if let temporary = renamed[source] { from = temporary + from.dropFirst(source.count) }
            result.append(insertIgnoringDuplicates(table.name, table.columns, "\(select) FROM \(from)"))
        }
        return result
    }
}
