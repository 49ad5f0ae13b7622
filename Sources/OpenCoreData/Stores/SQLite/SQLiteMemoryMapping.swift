/// How much of a store's file its connections read through SQLite's memory-mapped I/O
/// (`PRAGMA mmap_size`) unless `NSSQLitePragmasOption` says otherwise.
///
/// Without it, every page a read touches is copied into the reading connection's page cache,
/// and a save drops the caches of the pool's other connections: a `count(for:)` right after a
/// large save copied the whole table in again (2.5 ms over raw SQLite for a million rows,
/// issue 43). Mapped, the pages are read where the operating system already holds them; the
/// same count took 2.8 ms against raw SQLite's 9.9 (docs/performance.md).
///
/// SQLite's own caveat decides where it applies: an I/O error on a mapped page arrives as a
/// signal rather than an error code. Every change of the file's size goes through SQLite's locks
/// (the coordinator's destroy, replace and migration included: `SQLiteStoreFiles`), so the
/// mapping never outlives the bytes it covers; only something outside SQLite truncating a live
/// store, which corrupts it in any case, could. Windows keeps it off, because a mapping there
/// stops another connection from shrinking the file; 32-bit platforms too, whose address space
/// a pool of mapped connections would use up.
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
