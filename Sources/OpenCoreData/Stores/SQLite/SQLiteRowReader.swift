import Foundation
import GRDB
import GRDBSQLite

/// Steps a statement over one hierarchy table and turns its rows into `StoreRow`s, a chunk at a
/// time: a fetch hands the rest of a long read to another thread (`SQLiteStore.readInChunks`).
struct SQLiteRowReader: SQLiteChunkReader {
    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private let plan: SQLiteHierarchyPlan
    private let values: Bool
    private let model: NSManagedObjectModel
    // Made once, not per column read: a closure built in the loop retained its captures on every
    // call.
    private let modelNumber: (Int32) -> Int32
    private let externalData: (String) -> Data?
    private let onRow: ((OpaquePointer) -> Void)?
    // What the previous row's Z_ENT resolved to: rows of one entity come in long runs.
    private var lastStoreNumber: Int32 = -1
    private var number: Int32 = 0
    private var fills: [SlotFill] = []
    private var hasValues = false
    private let builder = SlotRowBuilder()

    init(
        _ statement: Statement, plan: SQLiteHierarchyPlan, values: Bool, db: Database, store: SQLiteStore,
        onRow: ((OpaquePointer) -> Void)? = nil
    ) {
        self.statement = statement
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        self.plan = plan
        self.values = values
        model = store.model!
        modelNumber = { [numbers = store.modelNumberOf] number in numbers[number] ?? 0 }
        externalData = store.externalDataReader
        self.onRow = onRow
    }

    /// Appends up to `limit` more rows to `rows`; true once the statement has none left.
    mutating func read(into rows: inout [StoreRow], limit: Int) throws -> Bool {
        // The rows read before may be on another thread by now: their blocks are done.
        builder.seal()
        var read = 0
        while read < limit {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return true }
            guard code == SQLITE_ROW else { throw stepFailure(code, statement, connection: connection) }
            let primaryKey = sqlite3_column_int64(handle, 0)
            let storeNumber = plan.soleStoreNumber ?? Int32(sqlite3_column_int(handle, 1))
            if lastStoreNumber != storeNumber {
                number = modelNumber(storeNumber)
                guard plan.entities[number] != nil else {
                    throw DatabaseError(
                        resultCode: .SQLITE_CORRUPT,
                        message: "a row of \(plan.table) has Z_ENT \(storeNumber), which is no entity of that table")
                }
                let reads = values ? plan.entities[number] : nil
                hasValues = reads != nil
                fills = reads.map { SlotFill.plan($0, entity: model.entitiesInStoreOrder[Int(number) - 1]) } ?? []
                lastStoreNumber = storeNumber
            }
            // A row without values (a fault's) has no version selected: it comes with the values.
            let version = values ? sqlite3_column_int64(handle, plan.versionColumn) : 0
            var slots: SlotRow?
            if hasValues {
                // Each slot written once, into storage shared by many rows (`SlotRow`).
                builder.beginRow(width: fills.count)
                let (handle, builder, modelNumber, externalData) = (handle, builder, modelNumber, externalData)
                fills.withUnsafeBufferPointer { fills in
                    for fill in fills {
                        switch fill {
                        case .unloaded: builder.append(.unloaded)
                        case .null: builder.append(.null)
                        // The common kinds straight into their column, without a `SlotValue`
                        // made and matched: a third of this thread's time went there (perf,
                        // fetch-all of a million rows).
                        case .column(let column, .string): builder.appendString(SQLiteColumn.string(handle, column))
                        case .column(let column, .integer): builder.appendInteger(SQLiteColumn.integer(handle, column))
                        case .column(let column, .double): builder.appendDouble(SQLiteColumn.double(handle, column), isDate: false)
                        case .column(let column, .date): builder.appendDouble(SQLiteColumn.double(handle, column), isDate: true)
                        case .column(let column, let kind):
                            builder.append(SQLiteColumn.read(handle, column, kind, storeNumbers: modelNumber, externalData: externalData))
                        }
                    }
                }
                slots = builder.endRow()
            }
            // `consume`: a copy here cost a retain and a release per row, atomic and not free.
            rows.append(StoreRow(entityNumber: number, primaryKey: primaryKey, version: version, values: consume slots))
            onRow?(handle)
            read += 1
        }
        return false
    }

    /// How the reader fills one slot of an entity's row.
    private enum SlotFill {
        /// A to-many relationship: loaded when first used.
        case unloaded
        /// A transient property: not stored.
        case null
        case column(Int32, SQLiteHierarchyPlan.ColumnRead.Kind)

        /// The fills of `entity`'s slots, in slot order, from its column reads.
        static func plan(_ reads: [SQLiteHierarchyPlan.ColumnRead], entity: NSEntityDescription) -> [SlotFill] {
            let properties = entity.layout!.properties
            var fills = [SlotFill](repeating: .unloaded, count: properties.count)
            for property in properties where property.isTransient { fills[property.slot] = .null }
            for read in reads { fills[read.slot] = .column(read.column, read.kind) }
            return fills
        }
    }
}
