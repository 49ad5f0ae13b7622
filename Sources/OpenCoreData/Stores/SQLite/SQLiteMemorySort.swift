import GRDBSQLite

/// Orders a whole fetch by numeric sort keys (numbers, dates, to-one keys) in memory, exactly as
/// `ORDER BY <keys>, Z_PK` would: NULL before every number, integers and reals compared by value,
/// `-0.0` equal to `0.0`, ties by primary key.
///
/// Why: SQLite's sorter carries every row's whole record through its merge sort, which for a
/// million rows costs three times the scan itself; the rows read in table order and sorted here
/// by a 24-byte entry each cost a fraction of that. A value SQLite would order otherwise (text or a
/// blob in the column, an integer beyond 2^53 that a `Double` cannot hold) makes `sort` give up,
/// and the store sorts in SQL instead.
final class SQLiteMemorySort {
    /// A row's first key, encoded so that unsigned order is SQL order, its key and where it was read.
    private struct Entry {
        var key: UInt64
        var primaryKey: Int64
        var index: Int32
    }

    private let ascending: [Bool]
    // Unchecked: a sort is filled and used on one thread, and the runtime's exclusivity checks
    // cost two calls a row read.
    @exclusivity(unchecked) private var entries: [Entry] = []
    /// The second and later keys of each row, row after row; empty with one sort descriptor.
    @exclusivity(unchecked) private var laterKeys: [UInt64] = []
    /// Where the first key is among the statement's columns: after the row's own.
    @exclusivity(unchecked) private var firstColumn: Int32 = -1
    /// False once a row held a value that the encoding cannot order as SQLite does.
    @exclusivity(unchecked) private var isExact = true

    init(ascending: [Bool]) {
        self.ascending = ascending
    }

    /// Whether the rows of `query` may be sorted here: all of them are wanted (a limit or an
    /// offset picks rows by their place in the order, which SQL must then decide).
    static func canOrder(_ query: StoreQuery) -> Bool {
        !query.sortDescriptors.isEmpty && query.fetchLimit == 0 && query.fetchOffset == 0
    }

    /// Whether `key` compares numbers: strings go through collations only SQLite applies.
    static func canOrder(_ key: SQLiteQueryBuilder.SortKey) -> Bool {
        switch key.kind.valueClass {
        case .number, .date, .object: true
        case .string, .data, .uuid, .url, .opaque: false
        }
    }

    /// Records the keys of the row `handle` has just stepped to; rows come in the order of the
    /// array they are read into.
    func add(_ handle: OpaquePointer) {
        if firstColumn < 0 { firstColumn = sqlite3_column_count(handle) - Int32(ascending.count) }
        for later in ascending.indices.dropFirst() {
            laterKeys.append(key(handle, firstColumn + Int32(later), ascending: ascending[later]))
        }
        entries.append(
            Entry(
                key: key(handle, firstColumn, ascending: ascending[0]), primaryKey: sqlite3_column_int64(handle, 0),
                index: Int32(entries.count)))
    }

    /// Puts `rows`, read while `add` saw each, in the sort's order; false (and `rows` untouched)
    /// when a value made the order something only SQLite can decide.
    func sort<Row>(_ rows: inout [Row]) -> Bool {
        guard var order = order(of: rows.count) else { return false }
        rows.permute(by: &order)
        return true
    }

    /// The sort's order of the `count` rows `add` saw, as positions in reading order
    /// (`sorted[i] = read[order[i]]`); nil when a value made the order something only SQLite can
    /// decide, or `count` is not the number of rows seen.
    private func order(of count: Int) -> [Int32]? {
        guard isExact, count == entries.count else { return nil }
        let later = ascending.count - 1
        entries.withUnsafeMutableBufferPointer { entries in
            laterKeys.withUnsafeBufferPointer { laterKeys in
                entries.sort { a, b in
                    if a.key != b.key { return a.key < b.key }
                    if later > 0 {
                        let first = Int(a.index) * later, second = Int(b.index) * later
                        for offset in 0..<later where laterKeys[first + offset] != laterKeys[second + offset] {
                            return laterKeys[first + offset] < laterKeys[second + offset]
                        }
                    }
                    return a.primaryKey < b.primaryKey
                }
            }
        }
        let order = entries.map(\.index)
        entries = []
        laterKeys = []
        return order
    }

    /// The value in `column` as an unsigned number whose order is SQL's ascending (or descending)
    /// order of the values.
    private func key(_ handle: OpaquePointer, _ column: Int32, ascending: Bool) -> UInt64 {
        let encoded: UInt64
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            // Below every number: no double encodes to 0 (`encode`).
            encoded = 0
        case SQLITE_INTEGER:
            let value = sqlite3_column_int64(handle, column)
            guard value.magnitude <= 1 << 53 else {
                isExact = false
                return 0
            }
            encoded = Self.encode(Double(value))
        case SQLITE_FLOAT:
            encoded = Self.encode(sqlite3_column_double(handle, column))
        default:
            isExact = false
            return 0
        }
        return ascending ? encoded : ~encoded
    }

    /// IEEE 754 bits made to sort as unsigned integers: a positive number gets the sign bit set, a
    /// negative one all its bits flipped. SQLite stores no NaN, so the lowest encoding is
    /// `-infinity`'s, well above 0.
    static func encode(_ value: Double) -> UInt64 {
        let bits = (value == 0 ? 0.0 : value).bitPattern
        let sign: UInt64 = 1 << 63
        return bits & sign != 0 ? ~bits : bits | sign
    }
}
