import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Deletes the rows a batch delete chooses, in one transaction, leaving no dangling reference.
    ///
    /// A hierarchy no relationship touches is one `DELETE` statement. Otherwise the chosen rows go
    /// into a temporary table of doomed keys; cascade rules add their destinations until nothing
    /// new is added; a deny rule with a surviving destination refuses the request; then the doomed
    /// rows are deleted, to-one columns that pointed at them cleared (their rows' `Z_OPT` rises),
    /// and join rows naming them removed.
    func runBatchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome {
        let entity = request.query.entity
        let root = entity.layout!.root
        let table = root.tableName
        let builder = SQLiteQueryBuilder(store: self)
        var source = try builder.source(request.query)
        if let keys = request.primaryKeys {
            // One bound JSON array, however many keys (SQLite limits bound parameters).
            let list = "[" + keys.map(String.init).joined(separator: ",") + "]"
            source.conditions.append("\(raw: table).Z_PK IN (SELECT value FROM json_each(\(bind: list)))")
        }
        let order = try builder.orderBy(request.query.sortDescriptors, &source.compiler, table: table)
        let limit = builder.limit(request.query)
        var chosen: SQLFragment = "FROM \(raw: table)\(source.compiler.joins.sql)\(source.whereClause)"
        if !order.isEmpty { chosen += " ORDER BY \(order)" }
        chosen += limit
        let wantsIDs = request.result == .objectIDs
        let graph = BatchDeleteGraph(entities: entities)

        if graph.isIsolated(root) {
            var sql: SQLFragment
            if source.compiler.joins.sql.isEmpty && order.isEmpty && limit.isEmpty {
                sql = "DELETE FROM \(raw: table)\(source.whereClause)"
            } else {
                sql = "DELETE FROM \(raw: table) WHERE Z_PK IN (SELECT \(raw: table).Z_PK \(chosen))"
            }
            let entityColumn = rowsMayBeOfSubentities(entity, includesSubentities: request.query.includesSubentities)
            var history = batchHistory(request.writer)
            let tombstones = history != nil ? tombstoneColumns(ofHierarchy: root) : []
            if history != nil {
                sql += " RETURNING \(raw: (["Z_PK", "Z_ENT"] + tombstones).joined(separator: ", "))"
            } else if wantsIDs {
                sql += entityColumn ? " RETURNING Z_PK, Z_ENT" : " RETURNING Z_PK"
            }
            return try batchWrite("NSBatchDeleteRequest") { db in
                let statement = try db.makeStatement(sql: sql.sql)
                statement.setUncheckedArguments(sql.arguments)
                if history != nil {
                    let stepped = try stepRecordingHistory(
                        statement, db: db, entity: entity, type: .delete, tombstoneColumns: tombstones, collectingIDs: wantsIDs, into: &history!)
                    try writeBatchHistory(history, db)
                    return StoreBatchOutcome(count: stepped.count, objectIDs: stepped.ids)
                }
                let ids = try stepCollectingIDs(statement, db: db, entity: entity, ids: wantsIDs, entityColumn: entityColumn)
                return StoreBatchOutcome(count: wantsIDs ? ids.count : db.changesCount, objectIDs: ids)
            }
        }

        let first: SQLFragment = "INSERT INTO temp.Z_BATCH_DELETE SELECT \(raw: number(root)), \(raw: table).Z_PK, \(raw: table).Z_ENT \(chosen)"
        return try batchWrite("NSBatchDeleteRequest") { db in
            try db.execute(sql: "CREATE TEMP TABLE Z_BATCH_DELETE (Z_ROOT INTEGER, Z_PK INTEGER, Z_ENT INTEGER, PRIMARY KEY (Z_ROOT, Z_PK)) WITHOUT ROWID")
            try db.execute(sql: first.sql, arguments: first.arguments)
            try cascade(graph, db)
            try checkDenyRules(graph, db)
            var outcome = StoreBatchOutcome()
            if wantsIDs { outcome.objectIDs = try doomedIDs(db) }
            var history = batchHistory(request.writer)
            for root in graph.roots {
                if history != nil {
                    let tombstones = tombstoneColumns(ofHierarchy: root)
                    let returning = (["Z_PK", "Z_ENT"] + tombstones).joined(separator: ", ")
                    let statement = try db.makeStatement(
                        sql: "DELETE FROM \(root.tableName) WHERE Z_PK IN \(doomed(root)) RETURNING \(returning)")
                    outcome.count += try stepRecordingHistory(
                        statement, db: db, entity: root, type: .delete, tombstoneColumns: tombstones, into: &history!).count
                    continue
                }
                try db.execute(sql: "DELETE FROM \(root.tableName) WHERE Z_PK IN \(doomed(root))")
                outcome.count += db.changesCount
            }
            try clearReferences(graph, db, history: &history)
            try writeBatchHistory(history, db)
            try db.execute(sql: "DROP TABLE temp.Z_BATCH_DELETE")
            return outcome
        }
    }

    private static let doomedTable = "temp.Z_BATCH_DELETE"

    /// The model's number for a hierarchy root, which names it in the doomed table.
    private func number(_ root: NSEntityDescription) -> Int { root.layout!.entityNumber }

    private func doomed(_ root: NSEntityDescription) -> String { BatchDeleteGraph.doomed(root, in: Self.doomedTable) }

    /// Adds the destinations of cascade relationships of doomed rows, pass after pass, until a pass
    /// adds nothing (cycles end there too).
    private func cascade(_ graph: BatchDeleteGraph, _ db: Database) throws {
        let statements = graph.cascadeSelections(in: Self.doomedTable).map { "INSERT OR IGNORE INTO \(Self.doomedTable) " + $0 }
        guard !statements.isEmpty else { return }
        var added = 1
        while added > 0 {
            added = 0
            for sql in statements {
                try db.execute(sql: sql)
                added += db.changesCount
            }
        }
    }

    /// Refuses the request when a doomed row has a deny relationship to a row that survives.
    private func checkDenyRules(_ graph: BatchDeleteGraph, _ db: Database) throws {
        for (relationship, sql) in graph.denialChecks(in: Self.doomedTable) where try Int.fetchOne(db, sql: sql) != nil {
            throw BatchDeleteGraph.denied(relationship)
        }
    }

    /// Clears to-one columns that point at deleted rows and removes join rows naming them.
    /// With `history`, the rows whose to-one was cleared are recorded as updates of it.
    private func clearReferences(_ graph: BatchDeleteGraph, _ db: Database, history: inout BatchHistory?) throws {
        for (relationship, sql) in graph.clearingUpdates(in: Self.doomedTable) {
            if history != nil {
                let statement = try db.makeStatement(sql: sql + " RETURNING Z_PK, Z_ENT")
                _ = try stepRecordingHistory(
                    statement, db: db, entity: relationship.entity!, type: .update, changedSlots: [relationship.slot], into: &history!)
            } else {
                try db.execute(sql: sql)
            }
        }
        for sql in graph.joinDeletions(in: Self.doomedTable) { try db.execute(sql: sql) }
    }

    /// The IDs of every doomed row, cascaded ones included.
    private func doomedIDs(_ db: Database) throws -> [NSManagedObjectID] {
        let statement = try db.makeStatement(sql: "SELECT Z_PK, Z_ENT FROM temp.Z_BATCH_DELETE")
        let model = persistentStoreCoordinator!.managedObjectModel
        return try stepCollectingIDs(statement, db: db, entity: model.entitiesInStoreOrder[0], ids: true, entityColumn: true)
    }
}
