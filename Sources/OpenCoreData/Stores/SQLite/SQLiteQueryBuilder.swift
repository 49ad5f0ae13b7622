import GRDB

/// Turns a fetch into SQL over Apple's layout: entity filter on Z_ENT, predicate as a WHERE clause
/// with bound parameters, sort descriptors as ORDER BY, limit and offset.
struct SQLiteQueryBuilder {
    let store: SQLiteStore

    func select(_ query: StoreQuery) throws -> (String, StatementArguments) {
        let root = query.entity.layout!.root
        let table = root.layout!.tableName
        let plan = SQLiteHierarchyPlan(root: root)
        var (whereClause, arguments, joins) = try filter(query)
        var sql = "SELECT \(query.includesPropertyValues ? plan.selectList : "\(table).Z_PK, \(table).Z_ENT, \(table).Z_OPT") FROM \(table)"
        let order = try orderBy(query.sortDescriptors, entity: query.entity, joins: &joins)
        sql += joins.sql
        if !whereClause.isEmpty { sql += " WHERE " + whereClause }
        if !order.isEmpty { sql += " ORDER BY " + order }
        if query.fetchLimit > 0 || query.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [query.fetchLimit > 0 ? query.fetchLimit : -1, query.fetchOffset]
        }
        return (sql, arguments)
    }

    func count(_ query: StoreQuery) throws -> (String, StatementArguments) {
        let table = query.entity.layout!.root.layout!.tableName
        var (whereClause, arguments, joins) = try filter(query)
        var inner = "SELECT \(table).Z_PK FROM \(table)\(joins.sql)"
        if !whereClause.isEmpty { inner += " WHERE " + whereClause }
        if query.fetchLimit > 0 || query.fetchOffset > 0 {
            inner += " LIMIT ? OFFSET ?"
            arguments += [query.fetchLimit > 0 ? query.fetchLimit : -1, query.fetchOffset]
            return ("SELECT COUNT(*) FROM (\(inner))", arguments)
        }
        return ("SELECT COUNT(*) FROM \(table)\(joins.sql)\(whereClause.isEmpty ? "" : " WHERE " + whereClause)", arguments)
    }

    private func filter(_ query: StoreQuery) throws -> (String, StatementArguments, SQLJoins) {
        let entity = query.entity
        let table = entity.layout!.root.layout!.tableName
        var clauses: [String] = []
        var arguments = StatementArguments()
        let numbers = query.includesSubentities ? entity.layout!.hierarchyNumbers : [entity.layout!.entityNumber]
        let tableNumbers = entity.layout!.root.layout!.hierarchyNumbers
        if numbers.count != tableNumbers.count {
            let storeNumbers = numbers.map { store.storeNumber(store.entity(number: Int32($0))!) }
            if storeNumbers.count == 1 {
                clauses.append("\(table).Z_ENT = \(storeNumbers[0])")
            } else {
                clauses.append("\(table).Z_ENT IN (\(storeNumbers.map(String.init).joined(separator: ", ")))")
            }
        }
        var joins = SQLJoins(baseTable: table)
        if let predicate = query.predicate {
            var compiler = SQLPredicateCompiler(entity: entity, table: table, store: store, joins: joins)
            let clause = try compiler.compile(predicate)
            joins = compiler.joins
            arguments += compiler.arguments
            if clause != "1" { clauses.append(clause) }
        }
        return (clauses.map { clauses.count > 1 ? "(\($0))" : $0 }.joined(separator: " AND "), arguments, joins)
    }

    private func orderBy(_ descriptors: [NSSortDescriptor], entity: NSEntityDescription, joins: inout SQLJoins) throws -> String {
        try descriptors.map { descriptor in
            guard let key = descriptor.key else {
                throw CoreDataError.make(NSCoreDataError, "A sort descriptor for a SQLite fetch needs a key.")
            }
            let column = try joins.column(forKeyPath: key, from: entity)
            let collation = SortCollation(descriptor).sqlCollation
            return "\(column)\(collation) \(descriptor.ascending ? "ASC" : "DESC")"
        }.joined(separator: ", ")
    }
}

/// The LEFT JOINs a query needs to follow to-one key paths (`owner.name`), one alias per path.
struct SQLJoins {
    let baseTable: String
    private var aliases: [String: String] = [:]
    private(set) var sql = ""

    init(baseTable: String) { self.baseTable = baseTable }

    var isEmpty: Bool { aliases.isEmpty }

    /// The qualified column of an attribute or to-one key path, adding joins as needed.
    ///
    /// - Throws: `NSCoreDataError` naming the entity and key when the path is not in the model.
    mutating func column(forKeyPath keyPath: String, from entity: NSEntityDescription) throws -> String {
        let parts = keyPath.split(separator: ".").map(String.init)
        var current = entity
        var alias = baseTable
        var path = ""
        for (index, part) in parts.enumerated() {
            guard let property = current.propertiesByName[part] else {
                throw CoreDataError.make(
                    NSCoreDataError, "Keypath \(part) not found in entity \(current.name ?? "?")",
                    userInfo: ["entity": current.name ?? "", "key": part])
            }
            let isLast = index == parts.count - 1
            if isLast {
                if part == "objectID" || property.isTransient || property.columnName == nil {
                    throw CoreDataError.make(
                        NSCoreDataError, "The key path \(keyPath) of entity \(entity.name ?? "?") has no column to fetch on.",
                        userInfo: ["entity": entity.name ?? "", "key": keyPath])
                }
                return "\(alias).\(property.columnName!)"
            }
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                let foreignKey = relationship.columnName, let destination = relationship.destinationEntity
            else {
                throw CoreDataError.make(
                    NSCoreDataError, "The key path \(keyPath) of entity \(entity.name ?? "?") does not go through to-one relationships.",
                    userInfo: ["entity": entity.name ?? "", "key": keyPath])
            }
            path += (path.isEmpty ? "" : ".") + part
            if let existing = aliases[path] {
                alias = existing
            } else {
                let next = "J\(aliases.count + 1)"
                sql += " LEFT JOIN \(destination.layout!.tableName) \(next) ON \(next).Z_PK = \(alias).\(foreignKey)"
                aliases[path] = next
                alias = next
            }
            current = destination
        }
        return "\(alias).Z_PK"
    }
}
