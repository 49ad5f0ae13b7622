import OpenCoreData

/// A fetch as PostgreSQL statements: the predicate, sort descriptors, offset and limit in SQL where
/// the relational layer's `SQLPredicateCompiler` can express them in PostgreSQL's dialect;
/// otherwise the rows of the entity in SQL and the rest in memory, with the same result.
struct PostgreSQLQuery {
    let store: PostgreSQLStore
    let query: StoreQuery
    /// Parameters bound before the query's own (a batch update's values).
    var leadingBinds: [PostgreSQLValue] = []

    /// The SQL of the fetch, and what is left to do in memory.
    struct Plan {
        var from: SQLFragment
        var conditions: [SQLFragment]
        var order: [SQLFragment]?
        /// The predicate when SQL could not express it.
        var memoryPredicate: NSPredicate?
        /// The compiler that made the conditions, for more of the same statement (its joins go on).
        var compiler: SQLPredicateCompiler

        var whereClause: SQLFragment { conditions.isEmpty ? "" : " WHERE \(SQLFragment.joined(conditions, separator: " AND "))" }
        var inSQL: Bool { memoryPredicate == nil && order != nil }
    }

    func plan() throws -> Plan {
        let entity = query.entity
        let table = store.plan(of: entity).table
        let names = SQLAliases()
        func freshCompiler() -> SQLPredicateCompiler {
            SQLPredicateCompiler(entity: entity, alias: "t", store: store, dialect: PostgreSQLDialect(), names: names)
        }
        var compiler = freshCompiler()
        var conditions: [SQLFragment] = []
        let numbers = query.includesSubentities ? entity.layout!.hierarchyNumbers : [entity.layout!.entityNumber]
        if numbers != entity.layout!.root.layout!.hierarchyNumbers {
            conditions.append(SQLFragment(raw: "t.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"))
        }
        var memoryPredicate: NSPredicate?
        if let predicate = query.predicate {
            do {
                conditions.append("(\(try compiler.compile(predicate)))")
            } catch is SQLNeedsEvaluator {
                compiler = freshCompiler()
                // The terms of an AND that SQL can hold still filter on the server; only the
                // others are evaluated in memory, over fewer rows.
                var remaining: [NSPredicate] = []
                let terms = (predicate as? NSCompoundPredicate).flatMap { $0.compoundPredicateType == .and ? $0.subpredicates : nil } ?? [predicate]
                for term in terms {
                    let before = compiler
                    do {
                        conditions.append("(\(try compiler.compile(term)))")
                    } catch is SQLNeedsEvaluator {
                        compiler = before
                        remaining.append(term)
                    }
                }
                memoryPredicate = remaining.count == 1 ? remaining[0] : NSCompoundPredicate(andPredicateWithSubpredicates: remaining)
            }
        }
        var order: [SQLFragment]? = []
        if memoryPredicate == nil {
            for descriptor in query.sortDescriptors {
                guard let term = try Self.orderTerm(descriptor, &compiler) else {
                    order = nil
                    break
                }
                order!.append(term)
            }
        }
        return Plan(
            from: "\(raw: table) t\(compiler.joins.sql)", conditions: conditions, order: order, memoryPredicate: memoryPredicate,
            compiler: compiler)
    }

    /// The ORDER BY term of a sort descriptor, or nil when SQL cannot order as the descriptor
    /// does (a comparison selector, a value of no order): the store then sorts in memory.
    ///
    /// - Throws: The relational layer's error for a key the model does not know, or a to-many.
    static func orderTerm(_ descriptor: NSSortDescriptor, _ compiler: inout SQLPredicateCompiler) throws -> SQLFragment? {
        guard let key = descriptor.key else { return nil }
        let selector = (descriptor as? KeyedSortDescriptor)?.comparisonSelector
        guard selector == nil || selector == SortComparison.compare.rawValue else { return nil }
        let (value, kind) = try compiler.sortValue(key)
        return orderTerm(value, kind, ascending: descriptor.ascending)
    }

    /// `value` ordered as the SQLite store orders it (nils first, text by Unicode scalars,
    /// objects by key, bytes and UUIDs byte by byte), or nil for a transformable value.
    static func orderTerm(_ value: SQLFragment, _ kind: SQLValueKind, ascending: Bool) -> SQLFragment? {
        let direction = ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        switch kind.valueClass {
        case .number, .date, .object, .data, .uuid: return "\(value) \(raw: direction)"
        case .string, .url: return "\(PostgreSQLDialect().inScalarOrder(value)) \(raw: direction)"
        case .opaque: return nil
        }
    }

    /// `ORDER BY` the terms and then the key, with the fetch's limit and offset.
    private func ordered(_ terms: [SQLFragment]) -> SQLFragment {
        var sql: SQLFragment = " ORDER BY \(SQLFragment.joined(terms + [SQLFragment(raw: "t.Z_PK")], separator: ", "))"
        if query.fetchLimit > 0 { sql += SQLFragment(raw: " LIMIT \(query.fetchLimit)") }
        if query.fetchOffset > 0 { sql += SQLFragment(raw: " OFFSET \(query.fetchOffset)") }
        return sql
    }

    /// The rows of the fetch, in order.
    func rows(on session: any PostgreSQLSession) throws -> [StoreRow] {
        let plan = try plan()
        let rowPlan = store.plan(of: query.entity)
        let values = query.includesPropertyValues || !plan.inSQL
        var sql: SQLFragment = "SELECT \(raw: rowPlan.selectList("t", values: values)) FROM \(plan.from)\(plan.whereClause)"
        // Equal sort keys (and no sort at all) in the order rows were made, as SQLite's rowid order.
        sql += plan.inSQL ? ordered(plan.order!) : " ORDER BY t.Z_PK"
        let statement = PostgreSQLDialect.render(sql, after: leadingBinds)
        var rows = rowPlan.rows(try session.run(statement.sql, statement.binds).rows, withValues: values)
        guard !plan.inSQL else { return rows }
        if let predicate = plan.memoryPredicate { rows = StoreRowView.filter(rows, predicate, store: store) }
        rows = StoreRowView.sort(rows, by: query.sortDescriptors, store: store)
        if query.fetchOffset > 0 { rows = Array(rows.dropFirst(query.fetchOffset)) }
        if query.fetchLimit > 0 { rows = Array(rows.prefix(query.fetchLimit)) }
        return rows
    }

    /// A SELECT of `columns` (over the alias `t`) for the fetch's rows, in the fetch's order,
    /// offset and limit, for a batch request to write through; a predicate SQL cannot express is
    /// evaluated here first, and the statement names its rows by key.
    func selection(_ columns: String, on session: any PostgreSQLSession) throws -> (sql: String, binds: [PostgreSQLValue]) {
        let plan = try plan()
        let table = store.plan(of: query.entity).table
        guard plan.inSQL else {
            var keys = try PostgreSQLQuery(store: store, query: query).rows(on: session).map(\.primaryKey)
            keys.sort()
            let list = "{" + keys.map(String.init).joined(separator: ",") + "}"
            return ("SELECT \(columns) FROM \(table) t WHERE t.Z_PK = ANY($\(leadingBinds.count + 1)::int8[])", leadingBinds + [.text(list)])
        }
        var sql: SQLFragment = "SELECT \(raw: columns) FROM \(plan.from)\(plan.whereClause)"
        if !plan.order!.isEmpty || query.fetchLimit > 0 || query.fetchOffset > 0 { sql += ordered(plan.order!) }
        return PostgreSQLDialect.render(sql, after: leadingBinds)
    }

    /// The fetch's WHERE clause over `<table> t` (empty for every row), when a batch request can
    /// write through it directly: SQL holds the whole predicate, with no join, order, offset or
    /// limit. A statement on the table itself spares the server a join with a selection of keys.
    func directCondition() throws -> (clause: String, binds: [PostgreSQLValue])? {
        let plan = try plan()
        guard plan.inSQL, plan.order!.isEmpty, query.fetchLimit == 0, query.fetchOffset == 0, plan.compiler.joins.sql.isEmpty else { return nil }
        let rendered = PostgreSQLDialect.render(plan.whereClause, after: leadingBinds)
        return (rendered.sql, rendered.binds)
    }

    /// How many rows the fetch returns.
    func count(on session: any PostgreSQLSession) throws -> Int {
        let plan = try plan()
        guard plan.memoryPredicate == nil else { return try rows(on: session).count }
        var sql: SQLFragment = "SELECT count(*) FROM \(plan.from)\(plan.whereClause)"
        if query.fetchLimit > 0 || query.fetchOffset > 0 {
            var inner: SQLFragment = "SELECT 1 FROM \(plan.from)\(plan.whereClause)"
            if query.fetchLimit > 0 { inner += SQLFragment(raw: " LIMIT \(query.fetchLimit)") }
            if query.fetchOffset > 0 { inner += SQLFragment(raw: " OFFSET \(query.fetchOffset)") }
            sql = "SELECT count(*) FROM (\(inner)) counted"
        }
        let statement = PostgreSQLDialect.render(sql, after: leadingBinds)
        let result = try session.run(statement.sql, statement.binds)
        return result.rows.first.flatMap { $0.first }.flatMap(PostgreSQLValues.integer).map(Int.init) ?? 0
    }
}
