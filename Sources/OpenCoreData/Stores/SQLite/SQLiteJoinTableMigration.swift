import Foundation
import GRDB

/// The many-to-many tables of an in-place migration: each destination table filled from the
/// source relationship's table (or from its key column, for a to-one that became a
/// many-to-many), and kept as it is when nothing about it changed.
struct JoinTableMigration {
    /// A new table, and the `SELECT` of its two columns from an old table (named as before the
    /// migration), if its relationship existed.
    private var built: [(name: String, columns: String, select: String?, from: String?)] = []
    /// The old join tables that are replaced or dropped.
    private(set) var replacedTables: [String] = []

    init(context: SQLiteInPlaceMigration.Context, destination: NSManagedObjectModel) {
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
                    oldJoin.destinationColumn == join.destinationColumn, oldTables.contains(join.name)
                {
                    kept.insert(join.name)
                    continue
                }
                let columns = "\(join.sourceColumn), \(join.destinationColumn)"
                if let oldJoin = old?.joinTable {
                    built.append((join.name, columns, "SELECT \(oldJoin.sourceColumn), \(oldJoin.destinationColumn)", oldJoin.name))
                } else if let old, let key = old.columnName, let owner = old.entity {
                    let numbers = owner.layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
                    built.append((join.name, columns, "SELECT Z_PK, \(key)", owner.rootEntity.layout!.tableName + " WHERE \(key) IS NOT NULL AND Z_ENT IN (\(numbers))"))
                } else {
                    built.append((join.name, columns, nil, nil))
                }
            }
        }
        replacedTables = oldTables.subtracting(kept).sorted()
    }

    /// Creates the new tables with the DDL of a new store and fills them from the old ones, read
    /// under their temporary names.
    func build(in db: Database, statements: [String], renamed: [String: String]) throws {
        for table in built {
            try db.execute(sql: statements.first { $0.hasPrefix("CREATE TABLE \(table.name) (") }!)
            guard let select = table.select, var from = table.from else { continue }
            let source = String(from.prefix { $0 != " " })
            if let temporary = renamed[source] { from = temporary + from.dropFirst(source.count) }
            try db.execute(sql: "INSERT OR IGNORE INTO \(table.name) (\(table.columns)) \(select) FROM \(from)")
        }
    }
}
