import GRDB

/// The persistent history tables in Apple's layout (docs/compatibility.md, "Persistent history"):
/// an ancillary model of three entities numbered from 16001, stored in `A`-prefixed tables.
enum SQLiteHistorySchema {
    /// The tables' and indexes' DDL as Apple's Core Data writes it, with `tombstones` tombstone
    /// columns (blobs, after `ZCOLUMNS`).
    static func statements(tombstones: Int) -> [String] {
        HistoryTableLayout.createTables(tombstones: tombstones, type: type) + [
            "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
            "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
            "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
            "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
            "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        ]
    }

    private static func type(_ kind: HistoryTableLayout.Kind) -> String {
        switch kind {
        case .key: "INTEGER PRIMARY KEY"
        case .integer: "INTEGER"
        case .real: "FLOAT"
        case .text: "VARCHAR"
        case .blob, .tombstone: "BLOB"
        }
    }

    /// Creates the history tables and their `Z_PRIMARYKEY` rows, inside the caller's transaction.
    static func create(in db: Database, tombstones: Int) throws {
        for sql in statements(tombstones: tombstones) { try db.execute(sql: sql) }
        for (number, name) in HistoryEntityNumbers.primaryKeyRows {
            try db.execute(
                sql: "INSERT OR IGNORE INTO Z_PRIMARYKEY(Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)", arguments: [number, name])
        }
    }

    /// Whether the file has history tables.
    static func exists(in db: Database) throws -> Bool {
        try db.tableExists("ATRANSACTION") && db.tableExists("ACHANGE") && db.tableExists("ATRANSACTIONSTRING")
    }

    /// Whether the file holds history rows: Apple then opens it read-only without the key.
    static func hasRows(in db: Database) throws -> Bool {
        guard try db.tableExists("ATRANSACTION") else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ATRANSACTION)") ?? false
    }

    /// The tombstone columns the file's `ACHANGE` has.
    static func tombstoneColumns(in db: Database) throws -> Int {
        try db.columns(in: "ACHANGE").filter { $0.name.uppercased().hasPrefix("ZTOMBSTONE") }.count
    }
}
