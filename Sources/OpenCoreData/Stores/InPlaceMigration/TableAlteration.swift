/// The short way of an in-place migration, for a table that only gains columns or renames some:
/// `ALTER TABLE … ADD COLUMN` and `RENAME COLUMN` leave every row where it is, where a rebuild
/// copies them all. A table that loses a column, changes a column's type, or moves rows between
/// entities is rebuilt instead, as Core Data rebuilds it ("dropping a column … would require a
/// copy of the old table into a new table").
extension TableMigration {
    /// The statements that turn the old table into this one in place, in order, and whether they
    /// leave columns the model no longer has (only when `deferringDrops`, for
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey`); nil when the table must be
    /// rebuilt (or is unchanged).
    ///
    /// - Parameters:
    ///   - deferringDrops: Whether a column the model lost may stay.
    ///   - columnType: The store's type for a new column, from the layout's SQLite type and the
    ///     table's column name.
    /// - Returns: The statements with `?` for each bound value, or nil.
    func alterations(
        deferringDrops: Bool = false, columnType: (_ sqliteType: String, _ column: String) -> String = { type, _ in type }
    ) -> (statements: [(sql: String, arguments: [MigrationArgument])], leavesColumns: Bool)? {
        guard failure == nil, !isUnchanged, let sourceTable, sourceTable == root.tableName,
            let sourceRoot = context.source.entitiesInStoreOrder.first(where: { $0.superentity == nil && $0.tableName == sourceTable })
        else { return nil }
        let allOld = ([sourceRoot] + ModelLayoutBuilder.descendants(of: sourceRoot)).compactMap { context.oldNumber[ObjectIdentifier($0)] }
        guard Set(allOld) == Set(oldNumbers), oldNumbers.allSatisfy({ context.renumbering[$0] == $0 }) else { return nil }

        let oldTypes = Dictionary(sourceRoot.tableColumns.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        let newTypes = Dictionary(root.tableColumns.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        let table = root.tableName
        var statements: [(sql: String, arguments: [MigrationArgument])] = []
        var carried = Set<String>()
        for column in columns.dropFirst(3) {
            guard let type = newTypes[column.name] else { return nil }
            if let oldType = oldTypes[column.name] {
                // A column kept under its name must keep its values and type.
                guard column.expression == column.name, column.arguments.isEmpty, oldType == type else { return nil }
                carried.insert(column.name)
            } else if let oldType = oldTypes[column.expression], column.arguments.isEmpty, oldType == type,
                newTypes[column.expression] == nil, !carried.contains(column.expression)
            {
                statements.append(("ALTER TABLE \(table) RENAME COLUMN \(column.expression) TO \(column.name)", []))
                carried.insert(column.expression)
            } else if column.expression == "NULL" {
                statements.append(("ALTER TABLE \(table) ADD COLUMN \(column.name) \(columnType(type, column.name))", []))
            } else if column.expression == "?", column.arguments.count == 1, let owner = owner(of: column.name) {
                // The default goes into the rows of the entities that have the attribute only;
                // the DDL stays a new store's (no DEFAULT clause).
                statements.append(("ALTER TABLE \(table) ADD COLUMN \(column.name) \(columnType(type, column.name))", []))
                let numbers = owner.layout!.hierarchyNumbers.map(String.init).joined(separator: ", ")
                statements.append(("UPDATE \(table) SET \(column.name) = ? WHERE Z_ENT IN (\(numbers))", column.arguments))
            } else {
                return nil
            }
        }
        // A column the new table no longer has needs the rebuild, unless it is deferred: the
        // column stays, unread, until `finishDeferredLightweightMigration()`.
        let dropped = !Set(oldTypes.keys).subtracting(["Z_PK", "Z_ENT", "Z_OPT"]).isSubset(of: carried)
        if dropped, !deferringDrops { return nil }
        return (statements, dropped)
    }

    /// The entity whose attribute has the column `column`.
    private func owner(of column: String) -> NSEntityDescription? {
        ([root] + ModelLayoutBuilder.descendants(of: root)).first { entity in
            entity.declaredProperties.contains { ($0 as? NSAttributeDescription)?.columnName == column }
        }
    }
}
