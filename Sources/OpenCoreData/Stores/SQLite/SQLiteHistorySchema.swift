import GRDB

/// The persistent history tables in Apple's layout (docs/compatibility.md, "Persistent history"):
/// an ancillary model of three entities numbered from 16001, stored in `A`-prefixed tables.
enum SQLiteHistorySchema {
    static let changeEntity: Int64 = 16001
    static let transactionEntity: Int64 = 16002
    static let stringEntity: Int64 = 16003

    /// The tables' and indexes' DDL as Apple's Core Data writes it, with `tombstones` tombstone
    /// columns (blobs, after `ZCOLUMNS`).
    static func statements(tombstones: Int) -> [String] {
        let tombstoneColumns = (0..<tombstones).map { ", ZTOMBSTONE\($0) BLOB" }.joined()
        return [
            "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstoneColumns) )",
            "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
            "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
            "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
            "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
            "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
            "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
            "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        ]
    }

    /// The `Z_PRIMARYKEY` rows of the history entities.
    static let primaryKeyRows = [(changeEntity, "CHANGE"), (transactionEntity, "TRANSACTION"), (stringEntity, "TRANSACTIONSTRING")]

    /// Creates the history tables and their `Z_PRIMARYKEY` rows, inside the caller's transaction.
    static func create(in db: Database, tombstones: Int) throws {
        for sql in statements(tombstones: tombstones) { try db.execute(sql: sql) }
        for (number, name) in primaryKeyRows {
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
