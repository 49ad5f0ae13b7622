/// The entity numbers of the persistent history's tables in Apple's layout (docs/compatibility.md,
/// "Persistent history"): an ancillary model of three entities numbered from 16001, stored in
/// `A`-prefixed tables, with `Z_PRIMARYKEY` rows of those numbers. Both SQL stores keep them.
package enum HistoryEntityNumbers {
    /// `ACHANGE`.
    package static let change: Int64 = 16001
    /// `ATRANSACTION`.
    package static let transaction: Int64 = 16002
    /// `ATRANSACTIONSTRING`.
    package static let string: Int64 = 16003

    /// The `Z_PRIMARYKEY` rows of the history entities: number and name.
    package static let primaryKeyRows = [(change, "CHANGE"), (transaction, "TRANSACTION"), (string, "TRANSACTIONSTRING")]
}

/// The columns of the persistent history's tables, in Apple's order, by the kind of value each
/// holds: each SQL store names the kinds' types in its own DDL.
package enum HistoryTableLayout {
    package enum Kind {
        /// The primary key.
        case key
        case integer
        case real
        case text
        case blob
        /// A deleted object's value of a tombstoned attribute, of any attribute type.
        case tombstone
    }

    /// The three tables, `ACHANGE` with `tombstones` tombstone columns after `ZCOLUMNS`.
    package static func tables(tombstones: Int) -> [(name: String, columns: [(name: String, kind: Kind)])] {
        let head: [(name: String, kind: Kind)] = [("Z_PK", .key), ("Z_ENT", .integer), ("Z_OPT", .integer)]
        let change = ["ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID"].map { ($0, Kind.integer) } + [("ZCOLUMNS", .blob)]
        let transaction = ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"].map { ($0, Kind.integer) } + [("ZTIMESTAMP", .real)]
            + ["ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID"].map { ($0, Kind.text) } + [("ZQUERYGEN", .blob)]
        return [
            ("ACHANGE", head + change + (0..<tombstones).map { ("ZTOMBSTONE\($0)", .tombstone) }),
            ("ATRANSACTION", head + transaction),
            ("ATRANSACTIONSTRING", head + [("ZNAME", .text)]),
        ]
    }

    /// The `CREATE TABLE` statements of the three tables, in Apple's spacing, each kind of column
    /// of the type `type` gives it, and the index every store keeps: changes by transaction, which
    /// every history fetch reads by.
    package static func createTables(tombstones: Int, type: (Kind) -> String) -> [String] {
        tables(tombstones: tombstones).map { table in
            "CREATE TABLE \(table.name) ( \(table.columns.map { "\($0.name) \(type($0.kind))" }.joined(separator: ", ")) )"
        } + ["CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)"]
    }
}
