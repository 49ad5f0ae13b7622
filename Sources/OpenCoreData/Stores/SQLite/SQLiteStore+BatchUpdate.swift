import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// One `UPDATE` of the entity's table in one transaction: the new values (bound constants or
    /// expressions over the row), `Z_OPT = Z_OPT + 1` so that contexts holding the old version
    /// conflict on their next save, the predicate as its WHERE clause, and `RETURNING Z_PK` when
    /// the request wants IDs.
    func runBatchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome {
        let entity = request.entity
        let table = entity.layout!.root.layout!.tableName
        let query = StoreQuery(
            entity: entity, predicate: request.predicate, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0,
            includesSubentities: request.includesSubentities, includesPropertyValues: false)
        // Everything is compiled (and every value checked) before the transaction begins.
        let source = try SQLiteQueryBuilder(store: self).source(query)
        var setter = SQLPredicateCompiler(entity: entity, alias: table, store: self, names: source.compiler.joins.names)
        var assignments: [SQLFragment] = []
        for (attribute, value) in request.assignments {
            assignments.append("\(raw: attribute.columnName!) = \(try setter.assignment(value, to: attribute))")
        }
        guard setter.joins.sql.isEmpty else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "The SQLite store can't follow relationships in the values of a batch update of entity \(entity.name ?? "?"): use the row's own attributes.")
        }
        assignments.append("Z_OPT = Z_OPT + 1")
        var sql: SQLFragment = "UPDATE \(raw: table) SET \(SQLFragment.joined(assignments, separator: ", "))"
        if source.compiler.joins.sql.isEmpty {
            sql += source.whereClause
        } else {
            // UPDATE has no joins: the rows are chosen by a subquery that has them.
            sql += " WHERE \(raw: table).Z_PK IN (SELECT \(raw: table).Z_PK FROM \(raw: table)\(source.compiler.joins.sql)\(source.whereClause))"
        }
        let wantsIDs = request.result == .objectIDs
        let entityColumn = rowsMayBeOfSubentities(entity, includesSubentities: request.includesSubentities)
        var history = batchHistory(request.writer)
        if history != nil {
            sql += " RETURNING Z_PK, Z_ENT"
        } else if wantsIDs {
            sql += entityColumn ? " RETURNING Z_PK, Z_ENT" : " RETURNING Z_PK"
        }

        return try batchWrite("NSBatchUpdateRequest") { db in
            let statement = try db.makeStatement(sql: sql.sql)
            statement.setUncheckedArguments(sql.arguments)
            if history != nil {
                let slots = request.assignments.map { $0.0.slot }
                let stepped = try stepRecordingHistory(
                    statement, db: db, entity: entity, type: .update, changedSlots: slots, collectingIDs: wantsIDs, into: &history!)
                try writeBatchHistory(history, db)
                return StoreBatchOutcome(count: stepped.count, objectIDs: stepped.ids)
            }
            let ids = try stepCollectingIDs(statement, db: db, entity: entity, ids: wantsIDs, entityColumn: entityColumn)
            return StoreBatchOutcome(count: wantsIDs ? ids.count : Int(sqlite3_changes(db.sqliteConnection)), objectIDs: ids)
        }
    }
}
