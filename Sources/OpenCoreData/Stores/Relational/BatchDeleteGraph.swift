/// The relationships of a store's entities that a batch delete must follow or clean up after.
package struct BatchDeleteGraph {
    /// Hierarchy roots, each a table.
    package let roots: [NSEntityDescription]
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

    package init(entities: [NSEntityDescription]) {
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
    package func isIsolated(_ root: NSEntityDescription) -> Bool { !connected.contains(ObjectIdentifier(root)) }

    // MARK: SQL both SQL stores run, over a table of doomed rows `(Z_ROOT, Z_PK, Z_ENT)`

    /// The doomed keys of `root`'s table, as a subquery.
    package static func doomed(_ root: NSEntityDescription, in doomedTable: String) -> String {
        "(SELECT Z_PK FROM \(doomedTable) WHERE Z_ROOT = \(root.layout!.entityNumber))"
    }

    /// The condition on a row `alias` of the relationship's destination table that it is a
    /// destination of a doomed source row.
    static func destinations(of relationship: NSRelationshipDescription, alias: String, in doomedTable: String) -> String {
        let sourceRoot = relationship.entity!.layout!.root
        let sourceTable = sourceRoot.tableName
        let doomed = doomed(sourceRoot, in: doomedTable)
        if let column = relationship.columnName {
            return "\(alias).Z_PK IN (SELECT S.\(column) FROM \(sourceTable) S WHERE S.Z_PK IN \(doomed))"
        }
        if let inverse = relationship.inverseRelationship, let column = inverse.columnName {
            return "\(alias).\(column) IN \(doomed)"
        }
        let join = relationship.joinTable!
        return "\(alias).Z_PK IN (SELECT J.\(join.destinationColumn) FROM \(join.name) J WHERE J.\(join.sourceColumn) IN \(doomed))"
    }

    /// Per cascade relationship, the SELECT of the doomed-table rows its destinations add.
    package func cascadeSelections(in doomedTable: String) -> [String] {
        cascades.map { relationship in
            let destination = relationship.destinationEntity!.layout!.root
            return "SELECT \(destination.layout!.entityNumber), D.Z_PK, D.Z_ENT FROM \(destination.tableName) D WHERE "
                + Self.destinations(of: relationship, alias: "D", in: doomedTable)
        }
    }

    /// Per deny relationship, a query with a row when a doomed row has a destination that survives.
    package func denialChecks(in doomedTable: String) -> [(relationship: NSRelationshipDescription, sql: String)] {
        denials.map { relationship in
            let destination = relationship.destinationEntity!.layout!.root
            let sql = "SELECT 1 FROM \(destination.tableName) D WHERE \(Self.destinations(of: relationship, alias: "D", in: doomedTable))"
                + " AND D.Z_PK NOT IN \(Self.doomed(destination, in: doomedTable)) LIMIT 1"
            return (relationship, sql)
        }
    }

    /// Core Data's error for a deny relationship that keeps the batch delete from running.
    package static func denied(_ relationship: NSRelationshipDescription) -> NSError {
        CoreDataError.validation(
            NSValidationRelationshipDeniedDeleteError,
            "The batch delete can't delete objects of \(relationship.entity?.name ?? "?"): their relationship '\(relationship.name)' is not empty and has the deny rule.",
            object: nil, key: relationship.name)
    }

    /// Per stored to-one, the UPDATE clearing its columns where they point at a doomed row (the
    /// row's `Z_OPT` rises).
    package func clearingUpdates(in doomedTable: String) -> [(relationship: NSRelationshipDescription, sql: String)] {
        toOnes.map { relationship in
            let destination = relationship.destinationEntity!.layout!.root
            let column = relationship.columnName!
            var cleared = ["\(column) = NULL"]
            if let entityColumn = relationship.entityColumnName { cleared.append("\(entityColumn) = NULL") }
            if let orderColumn = relationship.orderColumnName { cleared.append("\(orderColumn) = NULL") }
            cleared.append("Z_OPT = Z_OPT + 1")
            let table = relationship.entity!.layout!.root.tableName
            return (relationship, "UPDATE \(table) SET \(cleared.joined(separator: ", ")) WHERE \(column) IN \(Self.doomed(destination, in: doomedTable))")
        }
    }

    /// The DELETEs of join rows naming a doomed row.
    package func joinDeletions(in doomedTable: String) -> [String] {
        joinOwners.map { relationship in
            let join = relationship.joinTable!
            let source = Self.doomed(relationship.entity!.layout!.root, in: doomedTable)
            let destination = Self.doomed(relationship.destinationEntity!.layout!.root, in: doomedTable)
            return "DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN \(source) OR \(join.destinationColumn) IN \(destination)"
        }
    }
}
