import GRDBSQLite

/// The first bytes of a database file, read through SQLite's own file layer.
///
/// Reading them with a file handle of our own would be wrong while this process has a
/// connection to the file: POSIX releases every lock a process holds on a file when any of its
/// descriptors to that file closes. Another process would then take our connections for gone,
/// and the last one to close would fold the write-ahead log in and delete it under them (a second
/// coordinator opened on a store this process already had open did exactly that: the first one
/// stopped seeing other processes' commits). SQLite's unix layer keeps such a descriptor open
/// until the process's last connection to the file closes.
enum SQLiteFileHeader {
    /// Up to `count` bytes from the start of the file at `path`; fewer when it is shorter; nil
    /// when it can't be opened.
    static func read(_ path: String, count: Int) -> [UInt8]? {
        guard let vfs = sqlite3_vfs_find(nil) else { return nil }
        let size = Int(vfs.pointee.szOsFile)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(size, MemoryLayout<sqlite3_file>.size), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: max(size, MemoryLayout<sqlite3_file>.size))
        defer { storage.deallocate() }
        let file = storage.assumingMemoryBound(to: sqlite3_file.self)
        // SQLite keeps the name it is given for as long as the file is open.
        guard let name = strdup(path) else { return nil }
        defer { free(name) }
        var flags: Int32 = 0
        guard let open = vfs.pointee.xOpen, open(vfs, name, file, SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READONLY, &flags) == SQLITE_OK,
            let methods = file.pointee.pMethods
        else { return nil }
        defer { _ = methods.pointee.xClose?(file) }
        var fileSize: sqlite3_int64 = 0
        guard methods.pointee.xFileSize?(file, &fileSize) == SQLITE_OK else { return nil }
        let length = Int(min(Int64(count), Int64(fileSize)))
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        let code = bytes.withUnsafeMutableBytes { methods.pointee.xRead?(file, $0.baseAddress, Int32(length), 0) ?? SQLITE_ERROR }
        return code == SQLITE_OK ? bytes : nil
    }
}
