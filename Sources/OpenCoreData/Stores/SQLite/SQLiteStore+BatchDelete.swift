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
        let table = root.layout!.tableName
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
                        sql: "DELETE FROM \(root.layout!.tableName) WHERE Z_PK IN \(doomed(root)) RETURNING \(returning)")
                    outcome.count += try stepRecordingHistory(
                        statement, db: db, entity: root, type: .delete, tombstoneColumns: tombstones, into: &history!).count
                    continue
                }
                try db.execute(sql: "DELETE FROM \(root.layout!.tableName) WHERE Z_PK IN \(doomed(root))")
                outcome.count += db.changesCount
            }
            try clearReferences(graph, db, history: &history)
            try writeBatchHistory(history, db)
            try db.execute(sql: "DROP TABLE temp.Z_BATCH_DELETE")
            return outcome
        }
    }

    /// The model's number for a hierarchy root, which names it in the doomed table.
    private func number(_ root: NSEntityDescription) -> Int { root.layout!.entityNumber }

    /// The doomed keys of `root`'s table, as a subquery.
    private func doomed(_ root: NSEntityDescription) -> String {
        "(SELECT Z_PK FROM temp.Z_BATCH_DELETE WHERE Z_ROOT = \(number(root)))"
    }

    /// Adds the destinations of cascade relationships of doomed rows, pass after pass, until a pass
    /// adds nothing (cycles end there too).
    private func cascade(_ graph: BatchDeleteGraph, _ db: Database) throws {
        let statements = graph.cascades.map { relationship -> String in
            let destination = relationship.destinationEntity!.layout!.root
            let target = destination.layout!.tableName
            return "INSERT OR IGNORE INTO temp.Z_BATCH_DELETE SELECT \(number(destination)), D.Z_PK, D.Z_ENT FROM \(target) D WHERE "
                + destinations(of: relationship, alias: "D")
        }
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

    /// The condition on a row `alias` of the relationship's destination table that it is a
    /// destination of a doomed source row.
    private func destinations(of relationship: NSRelationshipDescription, alias: String) -> String {
        let sourceRoot = relationship.entity!.layout!.root
        let sourceTable = sourceRoot.layout!.tableName
        if let column = relationship.columnName {
            return "\(alias).Z_PK IN (SELECT S.\(column) FROM \(sourceTable) S WHERE S.Z_PK IN \(doomed(sourceRoot)))"
        }
        if let inverse = relationship.inverseRelationship, let column = inverse.columnName {
            return "\(alias).\(column) IN \(doomed(sourceRoot))"
        }
        let join = relationship.joinTable!
        return "\(alias).Z_PK IN (SELECT J.\(join.destinationColumn) FROM \(join.name) J WHERE J.\(join.sourceColumn) IN \(doomed(sourceRoot)))"
    }

    /// Refuses the request when a doomed row has a deny relationship to a row that survives.
    private func checkDenyRules(_ graph: BatchDeleteGraph, _ db: Database) throws {
        for relationship in graph.denials {
            let destination = relationship.destinationEntity!.layout!.root
            let sql = "SELECT 1 FROM \(destination.layout!.tableName) D WHERE \(destinations(of: relationship, alias: "D")) AND D.Z_PK NOT IN \(doomed(destination)) LIMIT 1"
            if try Int.fetchOne(db, sql: sql) != nil {
                let name = relationship.entity?.name ?? "?"
                throw CoreDataError.validation(
                    NSValidationRelationshipDeniedDeleteError,
                    "The batch delete can't delete objects of \(name): their relationship '\(relationship.name)' is not empty and has the deny rule.",
                    object: nil, key: relationship.name)
            }
        }
    }

    /// Clears to-one columns that point at deleted rows and removes join rows naming them.
    /// With `history`, the rows whose to-one was cleared are recorded as updates of it.
    private func clearReferences(_ graph: BatchDeleteGraph, _ db: Database, history: inout BatchHistory?) throws {
        for relationship in graph.toOnes {
            let destination = relationship.destinationEntity!.layout!.root
            let column = relationship.columnName!
            var cleared = ["\(column) = NULL"]
            if let entityColumn = relationship.entityColumnName { cleared.append("\(entityColumn) = NULL") }
            if let orderColumn = relationship.orderColumnName { cleared.append("\(orderColumn) = NULL") }
            cleared.append("Z_OPT = Z_OPT + 1")
            let table = relationship.entity!.layout!.root.layout!.tableName
            let sql = "UPDATE \(table) SET \(cleared.joined(separator: ", ")) WHERE \(column) IN \(doomed(destination))"
            if history != nil {
                let statement = try db.makeStatement(sql: sql + " RETURNING Z_PK, Z_ENT")
                _ = try stepRecordingHistory(
                    statement, db: db, entity: relationship.entity!, type: .update, changedSlots: [relationship.slot], into: &history!)
            } else {
                try db.execute(sql: sql)
            }
        }
        for relationship in graph.joinOwners {
            let join = relationship.joinTable!
            let source = relationship.entity!.layout!.root
            let destination = relationship.destinationEntity!.layout!.root
            try db.execute(
                sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN \(doomed(source)) OR \(join.destinationColumn) IN \(doomed(destination))")
        }
    }

    /// The IDs of every doomed row, cascaded ones included.
    private func doomedIDs(_ db: Database) throws -> [NSManagedObjectID] {
        let statement = try db.makeStatement(sql: "SELECT Z_PK, Z_ENT FROM temp.Z_BATCH_DELETE")
        let model = persistentStoreCoordinator!.managedObjectModel
        return try stepCollectingIDs(statement, db: db, entity: model.entitiesInStoreOrder[0], ids: true, entityColumn: true)
    }
}

/// The relationships of a store's entities that a batch delete must follow or clean up after.
struct BatchDeleteGraph {
    /// Hierarchy roots, each a table.
    let roots: [NSEntityDescription]
    /// Relationships whose destinations are deleted with their source.
    let cascades: [NSRelationshipDescription]
    /// Relationships that forbid deleting a source that still has destinations.
    let denials: [NSRelationshipDescription]
    /// Stored to-one relationships: their column must not point at a deleted row.
    let toOnes: [NSRelationshipDescription]
    /// Many-to-many relationships that own their join table.
    let joinOwners: [NSRelationshipDescription]
    /// Roots of hierarchies some relationship starts from or leads to.
    private let connected: Set<ObjectIdentifier>

    init(entities: [NSEntityDescription]) {
        var seen = Set<ObjectIdentifier>()
        var relationships: [NSRelationshipDescription] = []
        for entity in entities {
            for case let relationship as NSRelationshipDescription in entity.properties
            where !relationship.isTransient && relationship.destinationEntity != nil {
                if seen.insert(ObjectIdentifier(relationship)).inserted { relationships.append(relationship) }
            }
        }
        roots = entities.filter { $0.superentity == nil }
        cascades = relationships.filter { $0.deleteRule == .cascadeDeleteRule }
        denials = relationships.filter { $0.deleteRule == .denyDeleteRule }
        toOnes = relationships.filter { $0.columnName != nil }
        joinOwners = relationships.filter { $0.joinTable?.isOwner == true }
        var connected = Set<ObjectIdentifier>()
        for relationship in relationships {
            connected.insert(ObjectIdentifier(relationship.entity!.layout!.root))
            connected.insert(ObjectIdentifier(relationship.destinationEntity!.layout!.root))
        }
        self.connected = connected
    }

    /// Whether no relationship touches `root`'s hierarchy, so deleting its rows is one statement.
    func isIsolated(_ root: NSEntityDescription) -> Bool { !connected.contains(ObjectIdentifier(root)) }
}
