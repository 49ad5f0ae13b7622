import OpenCoreData

/// The tables of a PostgreSQL store: Core Data's names (`Z<ENTITY>` with `Z_PK`, `Z_ENT`,
/// `Z_OPT`, `Z_PRIMARYKEY`, `Z_METADATA`, the `Z_<n><RELATIONSHIP>` join tables), so that a
/// user who reads a SQLite store's tables reads these, with column types that hold every value
/// exactly:
/// - integers and booleans `int8` (Core Data's integers are 64-bit; a boolean is 0 or 1, as in
///   its SQLite stores, so that `done == NO` compares the same way);
/// - doubles, floats and **dates** `float8`: a date as Core Data's seconds since 2001, the
///   `Date`'s own `Double`, so it comes back bit-identical (`timestamptz` keeps microseconds and
///   would round);
/// - decimals `numeric`, UUIDs `uuid`, strings and URIs `text`, binary data and transformables `bytea`.
///
/// Identifiers are written unquoted, so PostgreSQL keeps them in lower case (`zitem.zname`); the
/// store's statements name them the same unquoted way.
enum PostgreSQLSchema {
    /// Every statement creating the store's tables and indexes for the model's `entities`.
    static func statements(for entities: [NSEntityDescription]) -> [String] {
        var sql = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT int8 PRIMARY KEY, Z_NAME text, Z_SUPER int8, Z_MAX int8)",
            "CREATE TABLE Z_METADATA (Z_VERSION int8 PRIMARY KEY, Z_UUID text, Z_PLIST bytea)",
        ]
        var joinTables: [String: JoinTable] = [:]
        for root in entities where root.superentity == nil {
            let table = root.tableName
            let types = columnTypes(of: root)
            let columns = ["Z_PK int8 PRIMARY KEY", "Z_ENT int8 NOT NULL", "Z_OPT int8 NOT NULL"]
                + root.tableColumns.map { "\($0.0) \(types[$0.0] ?? "int8")" }
            sql.append("CREATE TABLE \(table) (\(columns.joined(separator: ", ")))")
            let hierarchy = [root] + ModelLayoutBuilder.descendants(of: root)
            for entity in hierarchy {
                for case let relationship as NSRelationshipDescription in entity.declaredProperties where !relationship.isTransient {
                    if let column = relationship.columnName {
                        sql.append("CREATE INDEX \(table)_\(column)_INDEX ON \(table) (\(column))")
                    }
                    if let join = relationship.joinTable, join.isOwner { joinTables[join.name] = join }
                }
                sql += uniqueIndexes(of: entity, table: table)
            }
            if hierarchy.count > 1 { sql.append("CREATE INDEX \(table)_Z_ENT_INDEX ON \(table) (Z_ENT)") }
        }
        for name in joinTables.keys.sorted() {
            let join = joinTables[name]!
            let (first, second) = (join.sourceColumn, join.destinationColumn)
            let orders = join.orderColumns.map { ", \($0) int8" }.joined()
            sql.append("CREATE TABLE \(name) (\(first) int8 NOT NULL, \(second) int8 NOT NULL\(orders), PRIMARY KEY (\(first), \(second)))")
            sql.append("CREATE INDEX \(name)_\(second)_INDEX ON \(name) (\(second), \(first))")
        }
        return sql
    }

    /// The name of the unique index of one of `entity`'s uniqueness constraints, as PostgreSQL
    /// reports it in a violation (lower case).
    static func uniqueIndexName(_ entity: NSEntityDescription, _ names: [String]) -> String {
        "Z_\(entity.name!)_UNIQUE_\(names.joined(separator: "_"))".lowercased()
    }

    /// One unique index per constraint whose properties all have columns: PostgreSQL checks it in
    /// every process at once, which a check in the context could not.
    private static func uniqueIndexes(of entity: NSEntityDescription, table: String) -> [String] {
        entity.uniquenessConstraints.compactMap { constraint in
            let names = VersionHasher.constraintNames(constraint)
            let columns = names.compactMap { entity.propertiesByName[$0]?.columnName }
            guard !columns.isEmpty, columns.count == names.count else { return nil }
            // Only the rows of the entity and its subentities: a sibling's row may repeat the value.
            let numbers = entity.layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
            let index = uniqueIndexName(entity, names)
            // Index names are limited to 63 bytes; a longer one would be cut and could collide.
            guard index.utf8.count <= 63 else { return nil }
            return "CREATE UNIQUE INDEX \(index) ON \(table) (\(columns.joined(separator: ", "))) WHERE Z_ENT IN (\(numbers))"
        }
    }

    /// The column types of `root`'s table by column name; columns not named here (foreign keys,
    /// entity numbers of to-ones, ordered to-many positions) are `int8`.
    static func columnTypes(of root: NSEntityDescription) -> [String: String] {
        var types: [String: String] = [:]
        for entity in [root] + ModelLayoutBuilder.descendants(of: root) {
            for case let attribute as NSAttributeDescription in entity.declaredProperties {
                for stored in attribute.storedColumns { types[stored.column] = type(of: stored.attribute) }
            }
        }
        return types
    }

    static func type(of attribute: NSAttributeDescription) -> String {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: "int8"
        case .doubleAttributeType, .floatAttributeType, .dateAttributeType: "float8"
        case .decimalAttributeType: "numeric"
        case .stringAttributeType, .URIAttributeType: "text"
        case .UUIDAttributeType: "uuid"
        default: "bytea"
        }
    }
}
