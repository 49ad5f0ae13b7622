import GRDBSQLite

/// One reusable byte buffer per statement parameter, so that text is bound without SQLite copying
/// it (`SQLITE_STATIC`): each row's bytes are copied into the parameter's buffer, which stays
/// untouched until the row has been stepped and the next row binds. SQLite's own copy (a malloc and
/// a free a value) cost a fifth of a batch-inserted row.
///
/// Used by one thread at a time, so its arrays skip the runtime's exclusivity checks (two a bound
/// string otherwise).
final class SQLiteTextBuffers {
    @exclusivity(unchecked) private var buffers: [UnsafeMutablePointer<UInt8>?]
    @exclusivity(unchecked) private var capacities: [Int]

    init(parameters: Int) {
        buffers = Array(repeating: nil, count: parameters + 1)
        capacities = Array(repeating: 0, count: parameters + 1)
    }

    deinit {
        for buffer in buffers { buffer?.deallocate() }
    }

    /// Binds `string` to parameter `index` from the parameter's buffer.
    func bindText(_ string: String, to statement: OpaquePointer, at index: Int32) {
        var string = string
        string.withUTF8 { bytes in
            let slot = Int(index)
            if capacities[slot] < bytes.count || buffers[slot] == nil {
                buffers[slot]?.deallocate()
                let capacity = max(bytes.count, 64)
                buffers[slot] = .allocate(capacity: capacity)
                capacities[slot] = capacity
            }
            let buffer = buffers[slot]!
            if let base = bytes.baseAddress { buffer.update(from: base, count: bytes.count) }
            _ = buffer.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(statement, index, $0, Int32(bytes.count), nil /* SQLITE_STATIC */)
            }
        }
    }
}
