import GRDB
import GRDBSQLite

/// Steps a statement that selects `Z_PK` (and `Z_ENT`, unless the table holds one entity) and
/// reads each row's key and store entity number: an object-ID fetch's rows, read on one thread
/// while another makes the IDs (`SQLiteStore.readInChunks`).
struct SQLiteKeyReader: SQLiteChunkReader {
    struct Key {
        let primaryKey: Int64
        let storeNumber: Int32
    }

    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    /// The store number every row has when the table holds one entity (no `Z_ENT` selected).
    private let soleStoreNumber: Int32?
    /// Called on each row after its key is read: a sort in memory takes its keys there.
    private let onRow: ((OpaquePointer) -> Void)?

    init(_ statement: Statement, soleStoreNumber: Int32?, db: Database, onRow: ((OpaquePointer) -> Void)? = nil) {
        self.statement = statement
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        self.soleStoreNumber = soleStoreNumber
        self.onRow = onRow
    }

    mutating func read(into keys: inout [Key], limit: Int) throws -> Bool {
        for _ in 0..<limit {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return true }
            guard code == SQLITE_ROW else { throw stepFailure(code, statement, connection: connection) }
            keys.append(Key(primaryKey: sqlite3_column_int64(handle, 0), storeNumber: soleStoreNumber ?? sqlite3_column_int(handle, 1)))
            onRow?(handle)
        }
        return false
    }
}
