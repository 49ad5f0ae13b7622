import GRDB

extension SQLiteStore {
    /// Adds the order columns an ordered many-to-many's join table lacks in a store written
    /// before OpenCoreData kept that order there. The model's version hashes are the same, so no
    /// migration runs; the pairs read in key order until the list is saved again.
    ///
    /// - Parameter entities: The model's entities.
    /// - Throws: SQLite's error altering a table.
    /// - Complexity: O(join tables); nothing is written unless a column is missing.
    func addMissingOrderColumns(entities: [NSEntityDescription]) throws {
        var wanted: [String: [String]] = [:]
        for entity in entities {
            for case let relationship as NSRelationshipDescription in entity.properties {
                guard let join = relationship.pairTable, !join.orderColumns.isEmpty else { continue }
                wanted[join.name] = join.orderColumns
            }
        }
        guard !wanted.isEmpty, let pool else { return }
        let missing = try pool.read { db in
            try wanted.sorted { $0.key < $1.key }.flatMap { table, columns in
                let present = Set(try db.columns(in: table).map { $0.name.uppercased() })
                return columns.filter { !present.contains($0.uppercased()) }.map { (table, $0) }
            }
        }
        guard !missing.isEmpty else { return }
        try pool.write { db in
            for (table, column) in missing { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) INTEGER") }
        }
    }
}
