import Foundation
import GRDBSQLite

/// Keeps an opened and closed store file as it was when nothing was saved, and leaves no `-wal`
/// or `-shm` beside it once the store is removed, as Core Data's single connection does.
///
/// Two things stood in the way. GRDB writes a no-op transaction (a table created and dropped)
/// into the log whenever it opens a pool on a store whose `-wal` is missing or empty, so that its
/// read-only readers find one; folded into the file, it rewrites the file's header and schema
/// page although nothing was saved. And GRDB closes its writer before its read-only readers, so
/// the last connection to close cannot fold the log in and delete it.
enum SQLiteWriteAheadLog {
    /// Before a pool opens an existing store in WAL mode with no `-wal` file: creates one that
    /// holds a valid header and no frames, which SQLite reads as an empty log and GRDB as present.
    /// The file is created only if it does not exist (`O_EXCL`), so another process's log is never
    /// touched.
    static func prepare(forStoreAt path: String) {
        // A log that exists needs nothing (and any connection open to the file keeps one).
        guard !FileManager.default.fileExists(atPath: path + "-wal") else { return }
        guard let header = databaseHeader(path), header.count >= 100, header[18] == 2, header[19] == 2 else { return }
        let pageSize = header[16] == 0 && header[17] == 1 ? 65_536 : Int(header[16]) << 8 | Int(header[17])
        let descriptor = open(path + "-wal", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = emptyLogHeader(pageSize: UInt32(pageSize), salts: (UInt32.random(in: 0...UInt32.max), UInt32.random(in: 0...UInt32.max)))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// After the pool closed: opens and closes one read-write connection. When it is the last
    /// connection to the file in any process, SQLite folds the log into the file and deletes the
    /// `-wal` and `-shm` files; otherwise it leaves them to the connections still open.
    static func closeLastConnection(toStoreAt path: String) {
        var connection: OpaquePointer?
        defer { sqlite3_close(connection) }
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { return }
        // A statement makes the connection open the file and its log; the close does the rest.
        sqlite3_exec(connection, "SELECT count(*) FROM sqlite_master", nil, nil, nil)
    }

    /// The 32-byte header of a log with no frames (sqlite.org/fileformat2.html, "WAL File
    /// Format"): magic with big-endian checksums, format 3007000, page size, checkpoint 0, two
    /// salts, and the checksum of the first 24 bytes.
    static func emptyLogHeader(pageSize: UInt32, salts: (UInt32, UInt32)) -> [UInt8] {
        let words: [UInt32] = [0x377F_0683, 3_007_000, pageSize, 0, salts.0, salts.1]
        var s0: UInt32 = 0
        var s1: UInt32 = 0
        for pair in stride(from: 0, to: words.count, by: 2) {
            s0 = s0 &+ words[pair] &+ s1
            s1 = s1 &+ words[pair + 1] &+ s0
        }
        return (words + [s0, s1]).flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }

    private static func databaseHeader(_ path: String) -> [UInt8]? {
        SQLiteFileHeader.read(path, count: 100)
    }
}
