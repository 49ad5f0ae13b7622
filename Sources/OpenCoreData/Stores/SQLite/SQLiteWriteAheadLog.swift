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

    /// Whether the write-ahead log at `path` is one (its magic number) and has a frame of the
    /// database's first page from its current run (the header's salts): only then does SQLite
    /// find the database in it. Anything else beside a file of zeros is not looked into, since
    /// a connection that recovers a log folds it into the file when it closes.
    ///
    /// - Complexity: O(*f*) for the log's *f* frames (one 24-byte read each).
    static func holdsFirstPage(logAt path: String) -> Bool {
        func word(_ bytes: some Collection<UInt8>, _ offset: Int) -> UInt32 {
            bytes.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
        }
        guard let header = SQLiteFileHeader.read(path, count: 32), header.count == 32,
            word(header, 0) & 0xFFFF_FFFE == 0x377F_0682,
            let log = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? log.close() }
        let pageSize = Int(word(header, 8) == 1 ? 65_536 : word(header, 8))
        guard pageSize >= 512, pageSize.nonzeroBitCount == 1 else { return false }
        var offset: UInt64 = 32
        while (try? log.seek(toOffset: offset)) != nil, let frame = try? log.read(upToCount: 24), frame.count == 24 {
            if word(frame, 0) == 1, word(frame, 8) == word(header, 16), word(frame, 12) == word(header, 20) { return true }
            offset += 24 + UInt64(pageSize)
        }
        return false
    }

    private static func databaseHeader(_ path: String) -> [UInt8]? {
        SQLiteFileHeader.read(path, count: 100)
    }
}
