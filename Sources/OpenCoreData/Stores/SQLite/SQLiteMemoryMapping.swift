/// How much of a store's file its connections read through SQLite's memory-mapped I/O
/// (`PRAGMA mmap_size`) unless `NSSQLitePragmasOption` says otherwise.
///
/// Without it, every page a read touches is copied into the reading connection's page cache,
/// and a save drops the caches of the pool's other connections: a `count(for:)` right after a
/// large save copied the whole table in again (issue 43). Mapped, the main file's pages are read
/// where the operating system already holds them (docs/performance.md has the figures).
///
/// SQLite's caveat is that an I/O error on a mapped page arrives as a signal rather than an error
/// code. Nothing in this library shortens or rewrites a store file in place outside SQLite (the
/// destroy's vacuum and every checkpoint run inside it; a migration installs its file with
/// rename(2), and connections that mapped the old file keep its bytes), so only a failing device
/// or something outside SQLite truncating a live store can raise it. Windows keeps it off,
/// because a mapping there stops another connection from shrinking the file; 32-bit platforms
/// too, whose address space a pool of mapped connections would use up.
enum SQLiteMemoryMapping {
    /// The bytes mapped per connection: 256 MiB on 64-bit platforms other than Windows, else 0.
    static let defaultSize: Int = {
        #if os(Windows)
        return 0
        #else
        return MemoryLayout<Int>.size >= 8 ? 256 << 20 : 0
        #endif
    }()
}
