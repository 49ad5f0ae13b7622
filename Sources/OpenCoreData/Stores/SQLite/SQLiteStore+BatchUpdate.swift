import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// One `UPDATE` of the entity's table in one transaction: the new values (bound constants or
    /// expressions over the row), `Z_OPT = Z_OPT + 1` so that contexts holding the old version
    /// conflict on their next save, the predicate as its WHERE clause, and `RETURNING Z_PK` when
    /// the request wants IDs. With history, the change rows are written first, from the same
    /// selection of rows.
    func runBatchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome {
        let entity = request.entity
        let table = entity.layout!.root.tableName
        let query = StoreQuery(
            entity: entity, predicate: request.predicate, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0,
            includesSubentities: request.includesSubentities, includesPropertyValues: false)
        // Everything is compiled (and every value checked) before the transaction begins.
        let source = try SQLiteQueryBuilder(store: self).source(query)
        var setter = SQLPredicateCompiler(entity: entity, alias: table, store: self, dialect: SQLiteDialect(), names: source.compiler.joins.names)
        let assignments = try setter.batchAssignments(request.assignments)
        // UPDATE has no joins: with them, the rows are chosen by a subquery that has them.
        let rows: SQLFragment = source.compiler.joins.sql.isEmpty
            ? source.whereClause
            : " WHERE \(raw: table).Z_PK IN (SELECT \(raw: table).Z_PK FROM \(raw: table)\(source.compiler.joins.sql)\(source.whereClause))"
        var sql: SQLFragment = "UPDATE \(raw: table) SET \(assignments)\(rows)"
        let wantsIDs = request.result == .objectIDs
        let entityColumn = rowsMayBeOfSubentities(entity, includesSubentities: request.includesSubentities)
        if wantsIDs { sql += entityColumn ? " RETURNING Z_PK, Z_ENT" : " RETURNING Z_PK" }
        let history = batchHistory(request.writer)

        return try batchWrite("NSBatchUpdateRequest") { db in
            // The history's change rows first, selected as the update will select them.
            if let history {
                _ = try SQLiteHistoryWriter(store: self, db: db).writeUpdates(
                    history.draft, rows: "SELECT \(raw: table).Z_PK, \(raw: table).Z_ENT FROM \(raw: table)\(rows)",
                    changed: Set(request.assignments.map { $0.0.name }),
                    entities: [entity] + (request.includesSubentities ? ModelLayoutBuilder.descendants(of: entity) : []))
            }
            let statement = try db.makeStatement(sql: sql.sql)
            statement.setUncheckedArguments(sql.arguments)
            let ids = try stepCollectingIDs(statement, db: db, entity: entity, ids: wantsIDs, entityColumn: entityColumn)
            return StoreBatchOutcome(count: wantsIDs ? ids.count : Int(sqlite3_changes(db.sqliteConnection)), objectIDs: ids)
        }
    }
}
