import OpenCoreData

/// A fetch as PostgreSQL statements: the predicate, sort descriptors, offset and limit in SQL where
/// `PostgreSQLPredicateCompiler` can express them exactly; otherwise the rows of the entity in SQL
/// and the rest in memory, with the same result.
struct PostgreSQLQuery {
    let store: PostgreSQLStore
    let query: StoreQuery
    /// Parameters bound before the query's own (a batch update's values).
    var leadingBinds: [PostgreSQLValue] = []

    /// The SQL of the fetch, and what is left to do in memory.
    struct Plan {
        var from: String
        var conditions: [String]
        var binds: [PostgreSQLValue]
        var order: [String]?
        /// The predicate when SQL could not express it.
        var memoryPredicate: NSPredicate?
        /// The compiler that made the conditions, for more of the same statement (its binds and
        /// joins go on).
        var compiler: PostgreSQLPredicateCompiler

        var whereClause: String { conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ") }
        var inSQL: Bool { memoryPredicate == nil && order != nil }
    }

    func plan() throws -> Plan {
        let entity = query.entity
        let table = store.plan(of: entity).table
        var compiler = PostgreSQLPredicateCompiler(entity: entity, alias: "t", binds: leadingBinds)
        var conditions: [String] = []
        let numbers = query.includesSubentities ? entity.layout!.hierarchyNumbers : [entity.layout!.entityNumber]
        if numbers != entity.layout!.root.layout!.hierarchyNumbers {
            conditions.append("t.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
        }
        var memoryPredicate: NSPredicate?
        if let predicate = query.predicate {
            do {
                conditions.append(try compiler.compile(predicate))
            } catch is PostgreSQLPredicateCompiler.NotCompiled {
                compiler = PostgreSQLPredicateCompiler(entity: entity, alias: "t", binds: leadingBinds)
                // The terms of an AND that SQL can hold still filter on the server; only the
                // others are evaluated in memory, over fewer rows.
                var remaining: [NSPredicate] = []
                let terms = (predicate as? NSCompoundPredicate).flatMap { $0.compoundPredicateType == .and ? $0.subpredicates : nil } ?? [predicate]
                for term in terms {
                    let before = compiler
                    do {
                        conditions.append(try compiler.compile(term))
                    } catch is PostgreSQLPredicateCompiler.NotCompiled {
                        compiler = before
                        remaining.append(term)
                    }
                }
                memoryPredicate = remaining.count == 1 ? remaining[0] : NSCompoundPredicate(andPredicateWithSubpredicates: remaining)
            }
        }
        var order: [String]? = []
        if memoryPredicate == nil {
            for descriptor in query.sortDescriptors {
                do {
                    guard let term = try compiler.orderTerm(descriptor) else {
                        order = nil
                        break
                    }
                    order!.append(term)
                } catch is PostgreSQLPredicateCompiler.NotCompiled {
                    order = nil
                    break
                }
            }
        }
        return Plan(
            from: "\(table) t \(compiler.joinClause)", conditions: conditions, binds: compiler.binds, order: order,
            memoryPredicate: memoryPredicate, compiler: compiler)
    }

    /// The rows of the fetch, in order.
    func rows(on session: any PostgreSQLSession) throws -> [StoreRow] {
        let plan = try plan()
        let rowPlan = store.plan(of: query.entity)
        let values = query.includesPropertyValues || !plan.inSQL
        var sql = "SELECT \(rowPlan.selectList("t", values: values)) FROM \(plan.from)\(plan.whereClause)"
        if plan.inSQL {
            // Equal sort keys (and no sort at all) in the order rows were made, as SQLite's rowid order.
            sql += " ORDER BY " + (plan.order! + ["t.Z_PK"]).joined(separator: ", ")
            if query.fetchLimit > 0 { sql += " LIMIT \(query.fetchLimit)" }
            if query.fetchOffset > 0 { sql += " OFFSET \(query.fetchOffset)" }
        } else {
            sql += " ORDER BY t.Z_PK"
        }
        var rows = rowPlan.rows(try session.run(sql, plan.binds).rows, withValues: values)
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
        var sql = "SELECT \(columns) FROM \(plan.from)\(plan.whereClause)"
        if !plan.order!.isEmpty || query.fetchLimit > 0 || query.fetchOffset > 0 {
            sql += " ORDER BY " + (plan.order! + ["t.Z_PK"]).joined(separator: ", ")
            if query.fetchLimit > 0 { sql += " LIMIT \(query.fetchLimit)" }
            if query.fetchOffset > 0 { sql += " OFFSET \(query.fetchOffset)" }
        }
        return (sql, plan.binds)
    }

    /// The fetch's WHERE clause over `<table> t` (empty for every row), when a batch request can
    /// write through it directly: SQL holds the whole predicate, with no join, order, offset or
    /// limit. A statement on the table itself spares the server a join with a selection of keys.
    func directCondition() throws -> (clause: String, binds: [PostgreSQLValue])? {
        let plan = try plan()
        guard plan.inSQL, plan.order!.isEmpty, query.fetchLimit == 0, query.fetchOffset == 0,
            plan.from == "\(store.plan(of: query.entity).table) t "
        else { return nil }
        return (plan.whereClause, plan.binds)
    }

    /// How many rows the fetch returns.
    func count(on session: any PostgreSQLSession) throws -> Int {
        let plan = try plan()
        guard plan.memoryPredicate == nil else { return try rows(on: session).count }
        var sql = "SELECT count(*) FROM \(plan.from)\(plan.whereClause)"
        if query.fetchLimit > 0 || query.fetchOffset > 0 {
            var inner = "SELECT 1 FROM \(plan.from)\(plan.whereClause)"
            if query.fetchLimit > 0 { inner += " LIMIT \(query.fetchLimit)" }
            if query.fetchOffset > 0 { inner += " OFFSET \(query.fetchOffset)" }
            sql = "SELECT count(*) FROM (\(inner)) counted"
        }
        let result = try session.run(sql, plan.binds)
        return result.rows.first.flatMap { $0.first }.flatMap(PostgreSQLValues.integer).map(Int.init) ?? 0
    }
}
