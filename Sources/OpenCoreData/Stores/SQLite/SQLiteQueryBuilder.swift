import GRDB

/// Turns a fetch into SQL over Apple's layout: entity filter on Z_ENT, predicate as a WHERE clause
/// with bound parameters, sort descriptors as ORDER BY (with the collation of their selector, and
/// the primary key last so that ties come out in one order every time), limit and offset; or, for a
/// whole result sorted by numbers, no ORDER BY and the sort keys as extra columns (`SQLiteMemorySort`).
struct SQLiteQueryBuilder {
    let store: SQLiteStore

    /// The pieces every statement over one fetch shares.
    struct Source {
        let table: String
        var compiler: SQLPredicateCompiler
        /// The entity filter and the predicate; empty when every row matches.
        var conditions: [SQLFragment]

        var whereClause: SQLFragment {
            conditions.isEmpty ? "" : " WHERE \(SQLFragment.joined(conditions.map { conditions.count > 1 ? "(\($0))" : $0 }, separator: " AND "))"
        }
    }

    func source(_ query: StoreQuery) throws -> Source {
        let entity = query.entity
        let table = entity.layout!.root.tableName
        var conditions: [SQLFragment] = []
        if let filter = entityFilter(entity, includesSubentities: query.includesSubentities, alias: table) { conditions.append(filter) }
        var compiler = SQLPredicateCompiler(entity: entity, alias: table, store: store, dialect: SQLiteDialect(), names: SQLAliases())
        if let predicate = query.predicate {
            let condition = try compiler.compile(predicate)
            if condition.sql != "1" { conditions.append(condition) }
        }
        return Source(table: table, compiler: compiler, conditions: conditions)
    }

    /// `Z_ENT IN (…)` when the table holds entities the fetch must leave out.
    func entityFilter(_ entity: NSEntityDescription, includesSubentities: Bool, alias: String) -> SQLFragment? {
        let numbers = includesSubentities ? entity.layout!.hierarchyNumbers : [entity.layout!.entityNumber]
        guard numbers.count != entity.layout!.root.layout!.hierarchyNumbers.count else { return nil }
        let storeNumbers = numbers.map { String(store.storeNumber(store.entity(number: Int32($0))!)) }
        if storeNumbers.count == 1 { return SQLFragment(raw: "\(alias).Z_ENT = \(storeNumbers[0])") }
        return SQLFragment(raw: "\(alias).Z_ENT IN (\(storeNumbers.joined(separator: ", ")))")
    }

    /// The SELECT of `query`'s rows: with `includesPropertyValues` (and not `identitiesOnly`),
    /// key, entity, version and every column; otherwise key and entity alone (`Z_PK, Z_ENT`), or
    /// the key alone for a table of one entity (`SQLiteHierarchyPlan.soleStoreNumber`).
    func select(_ query: StoreQuery, identitiesOnly: Bool = false) throws -> SQLFragment {
        try select(query, identitiesOnly: identitiesOnly, ordersInMemory: false).sql
    }

    /// The same rows as `select(_:identitiesOnly:)` without ORDER BY, each followed by its sort
    /// keys, and the sort that orders them as ORDER BY would; nil when the fetch must sort in SQL
    /// (`SQLiteMemorySort.canOrder(_:)`).
    func unorderedSelect(_ query: StoreQuery, identitiesOnly: Bool = false) throws -> (sql: SQLFragment, sort: SQLiteMemorySort)? {
        guard SQLiteMemorySort.canOrder(query) else { return nil }
        let select = try select(query, identitiesOnly: identitiesOnly, ordersInMemory: true)
        return select.sort.map { (select.sql, $0) }
    }

    private func select(_ query: StoreQuery, identitiesOnly: Bool, ordersInMemory: Bool) throws -> (sql: SQLFragment, sort: SQLiteMemorySort?) {
        let root = query.entity.layout!.root
        // The store built its hierarchies' plans when it loaded; building one per query repeated that.
        let plan = store.plans[Int32(root.layout!.entityNumber)] ?? SQLiteHierarchyPlan(root: root, storeNumber: store.storeNumber)
        var source = try source(query)
        let table = source.table
        let keys = try sortKeys(query.sortDescriptors, &source.compiler)
        let sort = ordersInMemory && keys.allSatisfy(SQLiteMemorySort.canOrder) ? SQLiteMemorySort(ascending: keys.map(\.ascending)) : nil
        // Without values, the key and entity alone: a fault's version is read with its values,
        // when it fires, and leaving `Z_OPT` out cut a million-fault fetch by a sixth.
        let columns =
            query.includesPropertyValues && !identitiesOnly
            ? plan.selectList
            : (plan.soleStoreNumber != nil ? "\(table).Z_PK" : "\(table).Z_PK, \(table).Z_ENT")
        var sql: SQLFragment = "SELECT \(raw: columns)"
        if sort != nil {
            for key in keys { sql += ", \(key.value)" }
        }
        sql += " FROM \(raw: table)\(source.compiler.joins.sql)\(source.whereClause)"
        if sort == nil, !keys.isEmpty { sql += " ORDER BY \(orderBy(keys, table: table))" }
        sql += limit(query)
        return (sql, sort)
    }

    func count(_ query: StoreQuery) throws -> SQLFragment {
        let source = try source(query)
        let from: SQLFragment = "FROM \(raw: source.table)\(source.compiler.joins.sql)\(source.whereClause)"
        if query.fetchLimit > 0 || query.fetchOffset > 0 {
            return "SELECT COUNT(*) FROM (SELECT \(raw: source.table).Z_PK \(from)\(limit(query)))"
        }
        return "SELECT COUNT(*) \(from)"
    }

    func limit(_ query: StoreQuery) -> SQLFragment {
        guard query.fetchLimit > 0 || query.fetchOffset > 0 else { return "" }
        // Bound as `SQLValue`s: through GRDB's `DatabaseValueConvertible` existential, two
        // integers cost a ten-row fetch 4 µs (perf).
        let limit = SQLValue.integer(Int64(query.fetchLimit > 0 ? query.fetchLimit : -1))
        return " LIMIT \(bind: limit) OFFSET \(bind: SQLValue.integer(Int64(query.fetchOffset)))"
    }

    /// The ORDER BY terms: each key path (through to-one relationships) with its selector's
    /// collation when it is a string, then the primary key of `table` (nil for grouped rows,
    /// which have none).
    func orderBy(_ descriptors: [NSSortDescriptor], _ compiler: inout SQLPredicateCompiler, table: String?) throws -> SQLFragment {
        descriptors.isEmpty ? "" : orderBy(try sortKeys(descriptors, &compiler), table: table)
    }

    func orderBy(_ keys: [SortKey], table: String?) -> SQLFragment {
        var terms = keys.map { key in
            "\(key.value)\(raw: key.collation.map { " COLLATE " + $0 } ?? "") \(raw: key.ascending ? "ASC" : "DESC")" as SQLFragment
        }
        if let table { terms.append(SQLFragment(raw: "\(table).Z_PK")) }
        return SQLFragment.joined(terms, separator: ", ")
    }

    /// One sort descriptor as SQL: the value it sorts on, what kind of value that is, and the
    /// collation its selector asks of a string.
    struct SortKey {
        let value: SQLFragment
        let kind: SQLValueKind
        let collation: String?
        let ascending: Bool
    }

    func sortKeys(_ descriptors: [NSSortDescriptor], _ compiler: inout SQLPredicateCompiler) throws -> [SortKey] {
        try descriptors.map { descriptor in
            guard let key = descriptor.key else {
                throw CoreDataError.make(NSCoreDataError, "A sort descriptor for a SQLite fetch needs a key.")
            }
            let selector = (descriptor as? KeyedSortDescriptor)?.comparisonSelector
            guard SortComparison.isKnown(selector) else {
                throw CoreDataError.make(
                    NSPersistentStoreUnsupportedRequestTypeError,
                    "The SQLite store can't sort with the selector \(selector ?? "") (key \(key)).", userInfo: ["key": key])
            }
            let (value, kind) = try compiler.sortValue(key)
            let collation = kind.valueClass == .string ? SortComparison(selector: selector).collationName : nil
            return SortKey(value: value, kind: kind, collation: collation, ascending: descriptor.ascending)
        }
    }
}
