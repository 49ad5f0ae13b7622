/// The DDL Core Data writes for a model (docs/sqlite-format.md §2, §3, §5, §6), so a store created here has
/// the tables, columns, types and indexes of one created by Apple's Core Data.
enum SQLiteSchema {
    static let fixedTables = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// Every statement that creates the store's tables and indexes for `entities`.
    static func statements(for entities: [NSEntityDescription]) -> [String] {
        var sql: [String] = []
        var joinTables: [String: JoinTable] = [:]
        let roots = entities.filter { $0.superentity == nil }
        for root in roots {
            let table = root.tableName
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + root.tableColumns.map { "\($0.0) \($0.1)" }
            sql.append("CREATE TABLE \(table) ( \(columns.joined(separator: ", ")) )")
        }
        for root in roots {
            let table = root.tableName
            let hierarchy = [root] + ModelLayoutBuilder.descendants(of: root)
            for entity in hierarchy {
                for property in entity.declaredProperties {
                    guard let relationship = property as? NSRelationshipDescription, !relationship.isTransient
                    else { continue }
                    if let column = relationship.columnName {
                        sql.append("CREATE INDEX \(table)_\(column)_INDEX ON \(table) (\(column))")
                    }
                    if let join = relationship.joinTable, join.isOwner { joinTables[join.name] = join }
                }
            }
            if !root.subentities.isEmpty {
                sql.append("CREATE INDEX \(table)_Z_ENT_INDEX ON \(table) (Z_ENT)")
            }
            for entity in hierarchy {
                sql += constraintIndexes(of: entity, table: table)
                sql += fetchIndexes(of: entity, table: table)
            }
        }
        for name in joinTables.keys.sorted() {
            let join = joinTables[name]!
            let first = join.sourceColumn
            let second = join.destinationColumn
            // An ordered side's positions follow the keys (`Z_FOK_34ASSETS` in Photos' `Z_26ASSETS`).
            let orders = join.orderColumns.map { ", \($0) INTEGER" }.joined()
            sql.append(
                "CREATE TABLE \(name) ( \(first) INTEGER, \(second) INTEGER\(orders), PRIMARY KEY (\(first), \(second)) )")
            sql.append("CREATE INDEX \(name)_\(second)_INDEX ON \(name) (\(second), \(first))")
        }
        return sql
    }

    private static func constraintIndexes(of entity: NSEntityDescription, table: String) -> [String] {
        entity.uniquenessConstraints.compactMap { constraint in
            let names = VersionHasher.constraintNames(constraint)
            let columns = names.compactMap { entity.propertiesByName[$0]?.columnName }
            guard !columns.isEmpty, columns.count == names.count else { return nil }
            let list = columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")
            return "CREATE UNIQUE INDEX Z_\(entity.name!)_UNIQUE_\(names.joined(separator: "_")) ON \(table) (\(list))"
        }
    }

    private static func fetchIndexes(of entity: NSEntityDescription, table: String) -> [String] {
        entity.indexes.compactMap { index in
            let parts: [String] = index.elements.compactMap { element in
                guard element.collationType == .binary,
                    let name = element.property?.name ?? element.propertyName,
                    let column = entity.propertiesByName[name]?.columnName
                else { return nil }
                return "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
            }
            guard !parts.isEmpty else { return nil }
            return "CREATE INDEX Z_\(entity.name!)_\(index.name) ON \(table) (\(parts.joined(separator: ", ")))"
        }
    }
}
