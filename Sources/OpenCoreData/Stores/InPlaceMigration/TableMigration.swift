import Foundation

/// The rebuild of one destination table in an in-place migration: what each of its columns takes
/// from the source table, and whether anything changes at all. Plain SQL with `?` for each bound
/// value, which every store runs in its own dialect.
struct TableMigration {
    let root: NSEntityDescription
    let context: InPlaceMigrationContext
    /// The source table its rows come from; nil for a table of new entities only.
    let sourceTable: String?
    /// The source entity numbers whose rows are carried over.
    let oldNumbers: [Int64]
    /// Each destination column with the SQL that computes it from a source row, and its bound values.
    private(set) var columns: [(name: String, expression: String, arguments: [MigrationArgument])] = []
    private(set) var failure: String?

    init(root: NSEntityDescription, context: InPlaceMigrationContext) {
        self.root = root
        self.context = context
        let hierarchy = [root] + ModelLayoutBuilder.descendants(of: root)
        let sources = hierarchy.compactMap { context.sourceOf[ObjectIdentifier($0)] }
        sourceTable = sources.first?.rootEntity.tableName
        oldNumbers = sources.compactMap { context.oldNumber[ObjectIdentifier($0)] }.sorted()
        guard sourceTable != nil else { return }
        columns = [("Z_PK", "Z_PK", []), ("Z_ENT", context.renumbered("Z_ENT"), []), ("Z_OPT", "Z_OPT", [])]
        do {
            for (column, _) in root.tableColumns {
                columns.append(try expression(for: column, in: hierarchy))
            }
        } catch let unsupported as InPlaceMigrationFailure {
            failure = unsupported.reason
        } catch {
            failure = "\(error)"
        }
    }

    /// Whether the table stays as it is: same name, same columns in the same order, each taken
    /// from itself, every row of the old table kept under its number.
    var isUnchanged: Bool {
        guard failure == nil, let sourceTable, sourceTable == root.tableName,
            let sourceRoot = context.source.entitiesInStoreOrder.first(where: { $0.superentity == nil && $0.tableName == sourceTable })
        else { return false }
        let sourceColumns = sourceRoot.tableColumns
        let destinationColumns = root.tableColumns
        guard sourceColumns.count == destinationColumns.count,
            zip(sourceColumns, destinationColumns).allSatisfy({ $0.0 == $1.0 && $0.1 == $1.1 })
        else { return false }
        let allOld = ([sourceRoot] + ModelLayoutBuilder.descendants(of: sourceRoot)).compactMap { context.oldNumber[ObjectIdentifier($0)] }
        guard Set(allOld) == Set(oldNumbers), oldNumbers.allSatisfy({ context.renumbering[$0] == $0 }) else { return false }
        return columns.allSatisfy { $0.expression == $0.name && $0.arguments.isEmpty }
    }

    /// The `INSERT … SELECT` that fills the new table from the old one (read under its temporary
    /// name); nil for a table of new entities.
    func fillStatement(into table: String, renamed: [String: String]) throws -> (sql: String, arguments: [MigrationArgument])? {
        if let failure { throw InPlaceMigrationFailure(reason: failure) }
        guard let sourceTable, !oldNumbers.isEmpty else { return nil }
        let names = columns.map(\.name).joined(separator: ", ")
        let expressions = columns.map(\.expression).joined(separator: ", ")
        let numbers = oldNumbers.map(String.init).joined(separator: ", ")
        let arguments = columns.flatMap(\.arguments)
        let from = renamed[sourceTable] ?? sourceTable
        var sql = "INSERT INTO \(table) (\(names)) SELECT \(expressions) FROM \(from) AS \(Self.sourceAlias) WHERE Z_ENT IN (\(numbers))"
        for (old, temporary) in renamed { sql = sql.replacingOccurrences(of: Self.tablePlaceholder(old), with: temporary) }
        // Tables read where they are: their own names.
        while let start = sql.range(of: "{{table:"), let end = sql.range(of: "}}", range: start.upperBound..<sql.endIndex) {
            sql.replaceSubrange(start.lowerBound..<end.upperBound, with: String(sql[start.upperBound..<end.lowerBound]))
        }
        return (sql, arguments)
    }

    /// Refuses the migration when a required attribute without a default value is left empty
    /// (added, or optional before), as Core Data's migrator does.
    ///
    /// - Parameters:
    ///   - table: The filled table.
    ///   - count: Runs a `SELECT count(*)` in the store and returns the count.
    /// - Throws: `InPlaceMigrationFailure` naming the attribute and the rows without a value.
    func checkRequiredValues(in table: String, count: (String) throws -> Int) throws {
        for entity in [root] + ModelLayoutBuilder.descendants(of: root) {
            for attribute in entity.declaredProperties.compactMap({ $0 as? NSAttributeDescription })
            where !attribute.isOptional && !attribute.isTransient && attribute.defaultValue == nil {
                guard let column = attribute.columnName else { continue }
                let numbers = entity.layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
                let empty = try count("SELECT count(*) FROM \(table) WHERE \(column) IS NULL AND Z_ENT IN (\(numbers))")
                if empty > 0 {
                    throw InPlaceMigrationFailure(
                        reason: "Validation error missing attribute values on mandatory destination attribute \(entity.name!).\(attribute.name) (\(empty) rows)")
                }
            }
        }
    }

    private func expression(
        for column: String, in hierarchy: [NSEntityDescription]
    ) throws -> (name: String, expression: String, arguments: [MigrationArgument]) {
        for entity in hierarchy {
            for property in entity.declaredProperties where !property.isTransient {
                if let composite = property as? NSCompositeAttributeDescription,
                    let leaf = composite.storedColumns.first(where: { $0.column == column })
                {
                    // A leaf comes from the source composite's leaf at the same path.
                    let old = context.sourceProperty(of: composite, in: entity) as? NSCompositeAttributeDescription
                    let oldLeaf = old?.storedColumns.first { $0.path == leaf.path && $0.attribute.attributeType == leaf.attribute.attributeType }
                    return (column, oldLeaf?.column ?? "NULL", [])
                }
                if let attribute = property as? NSAttributeDescription, attribute.columnName == column {
                    return attributeExpression(attribute, column: column, in: entity)
                }
                if let relationship = property as? NSRelationshipDescription {
                    if relationship.columnName == column { return try keyExpression(relationship, column: column, in: entity) }
                    if relationship.entityColumnName == column { return entityExpression(relationship, column: column, in: entity) }
                    if relationship.orderColumnName == column {
                        let old = context.sourceProperty(of: relationship, in: entity) as? NSRelationshipDescription
                        return (column, old?.orderColumnName ?? "NULL", [])
                    }
                }
            }
        }
        return (column, "NULL", [])
    }

    /// The source column, or the default value (also in place of NULL for a required attribute
    /// that was optional), or NULL.
    private func attributeExpression(
        _ attribute: NSAttributeDescription, column: String, in entity: NSEntityDescription
    ) -> (name: String, expression: String, arguments: [MigrationArgument]) {
        let old = (context.sourceProperty(of: attribute, in: entity) as? NSAttributeDescription)?.columnName
        let fallback = attribute.defaultValue.map { SlotValue(attributeValue: $0, for: attribute) }.flatMap { slot -> MigrationArgument? in
            switch slot {
            case .null, .invalid: nil
            default: MigrationArgument(value: slot, attribute: attribute)
            }
        }
        switch (old, fallback) {
        case (let old?, nil): return (column, old, [])
        case (let old?, let value?): return (column, attribute.isOptional ? old : "COALESCE(\(old), ?)", attribute.isOptional ? [] : [value])
        case (nil, let value?): return (column, "?", [value])
        case (nil, nil): return (column, "NULL", [])
        }
    }

    /// A to-one's key column from the source's, or, for a to-many that became a to-one, the key
    /// of one of the rows it related.
    private func keyExpression(
        _ relationship: NSRelationshipDescription, column: String, in entity: NSEntityDescription
    ) throws -> (name: String, expression: String, arguments: [MigrationArgument]) {
        guard let old = context.sourceProperty(of: relationship, in: entity) as? NSRelationshipDescription else {
            return (column, "NULL", [])
        }
        guard let oldColumn = old.columnName else { return try keyFromInverse(of: old, relationship, column: column, in: entity) }
        return (column, oldColumn, [])
    }

    /// A to-many that became a to-one: the related row with the lowest key (the relationship had
    /// no order to pick by), found in the inverse to-one's column on the other side, or in the
    /// join table of a many-to-many.
    private func keyFromInverse(
        of old: NSRelationshipDescription, _ relationship: NSRelationshipDescription, column: String, in entity: NSEntityDescription
    ) throws -> (name: String, expression: String, arguments: [MigrationArgument]) {
        if let join = old.joinTable {
            let table = Self.tablePlaceholder(join.name)
            return (column, "(SELECT MIN(j.\(join.destinationColumn)) FROM \(table) AS j WHERE j.\(join.sourceColumn) = \(Self.sourceAlias).Z_PK)", [])
        }
        guard let inverse = old.inverseRelationship, let inverseColumn = inverse.columnName else {
            throw InPlaceMigrationFailure(
                reason: "the relationship \(entity.name!).\(relationship.name) changed from to-many to to-one without an inverse, which in-place migration cannot do")
        }
        let numbers = ([inverse.entity] + ModelLayoutBuilder.descendants(of: inverse.entity))
            .compactMap { context.oldNumber[ObjectIdentifier($0)] }.map(String.init).joined(separator: ", ")
        let other = Self.tablePlaceholder(inverse.entity.tableName)
        return (
            column,
            "(SELECT MIN(related.Z_PK) FROM \(other) AS related WHERE related.\(inverseColumn) = \(Self.sourceAlias).Z_PK AND related.Z_ENT IN (\(numbers)))",
            []
        )
    }

    /// The source table's name in the fill statement.
    static let sourceAlias = "migrated"

    /// A table named in an expression before the migration knows under which name it will read
    /// it (a table that changes is read under a temporary name); the fill statement puts the name in.
    static func tablePlaceholder(_ table: String) -> String { "{{table:\(table)}}" }

    /// The entity number of a to-one's destination, renumbered; where the source kept none (its
    /// destination had no subentities), the number of the entity the old destination became.
    private func entityExpression(
        _ relationship: NSRelationshipDescription, column: String, in entity: NSEntityDescription
    ) -> (name: String, expression: String, arguments: [MigrationArgument]) {
        guard let old = context.sourceProperty(of: relationship, in: entity) as? NSRelationshipDescription else {
            return (column, "NULL", [])
        }
        guard let key = old.columnName else {
            // A to-many that became a to-one: the entity of the row its new key names.
            guard let keyColumn = relationship.columnName, let target = old.destinationEntity?.rootEntity.tableName,
                let key = try? keyFromInverse(of: old, relationship, column: keyColumn, in: entity).expression
            else { return (column, "NULL", []) }
            return (column, context.renumbered("(SELECT target.Z_ENT FROM \(Self.tablePlaceholder(target)) AS target WHERE target.Z_PK = \(key))"), [])
        }
        if let oldEntityColumn = old.entityColumnName { return (column, context.renumbered(oldEntityColumn), []) }
        guard let oldTarget = old.destinationEntity, let number = context.oldNumber[ObjectIdentifier(oldTarget)],
            let new = context.renumbering[number]
        else { return (column, "NULL", []) }
        return (column, "CASE WHEN \(key) IS NULL THEN NULL ELSE \(new) END", [])
    }
}
