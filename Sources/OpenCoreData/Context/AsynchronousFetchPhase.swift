/// Where an asynchronous fetch of objects stands on its context's queue, from the first rows to
/// its end, with each transition a method (the states of swift-nio's state machines): the
/// operation asks the phase what to do next rather than reading flags.
///
/// registering(read done?, block queued?) → publishing(pages, done) → replacing(runs, run,
/// position) → ended; any phase may end (completion, failure, cancellation), and an ended fetch
/// stays ended.
enum AsynchronousFetchPhase {
    /// One page of staged objects: the store, the staging table and the page's number.
    typealias StagedPage = (store: NSPersistentStore, table: PrimaryKeyTable, page: Int64)

    /// Registering rows a slice at a time as they arrive: `readDone` once the last have, `queued`
    /// while a block that goes on registering waits on the queue (one is enough).
    case registering(readDone: Bool, queued: Bool)
    /// Moving the staged pages into the context's registry, `done` of them so far.
    case publishing(pages: [StagedPage], done: Int)
    /// Putting objects the context registered meanwhile in place of staged ones: the runs of new
    /// objects searched, the run and the position reached.
    case replacing(runs: [Range<Int>], run: Int, position: Int)
    /// Completed, failed or cancelled: no queued block carries on.
    case ended

    /// Before the first rows.
    static var start: AsynchronousFetchPhase { .registering(readDone: false, queued: false) }

    var isEnded: Bool {
        if case .ended = self { return true }
        return false
    }

    /// Whether rows that arrive now are registered at once: while registering with no block queued.
    var registersNow: Bool {
        if case .registering(_, queued: false) = self { return true }
        return false
    }

    /// The last rows have arrived.
    ///
    /// - Returns: Whether to register now (no block is queued to do it).
    mutating func readFinished() -> Bool {
        guard case .registering(_, let queued) = self else { return false }
        self = .registering(readDone: true, queued: queued)
        return !queued
    }

    /// A slice of registration ran out of time with rows left.
    ///
    /// - Returns: Whether to queue a block that goes on (none is queued yet, and the fetch goes on).
    mutating func yieldRegistration() -> Bool {
        guard case .registering(let readDone, queued: false) = self else { return false }
        self = .registering(readDone: readDone, queued: true)
        return true
    }

    /// The queued block runs.
    ///
    /// - Returns: Whether to go on registering.
    mutating func resumeRegistration() -> Bool {
        guard case .registering(let readDone, queued: true) = self else { return false }
        self = .registering(readDone: readDone, queued: false)
        return true
    }

    /// Registration caught up with the rows read so far: once the read is done, publishing begins.
    ///
    /// - Parameter pages: The staged pages, asked for only when publishing begins.
    /// - Returns: Whether publishing began.
    mutating func caughtUp(pages: () -> [StagedPage]) -> Bool {
        guard case .registering(readDone: true, _) = self else { return false }
        self = .publishing(pages: pages(), done: 0)
        return true
    }

    /// Every staged page is published: replacing begins over `runs`, or, with nothing to replace
    /// (nil), the phase stays for the caller to end.
    ///
    /// - Returns: Whether replacing began.
    mutating func published(replacing runs: [Range<Int>]?) -> Bool {
        guard case .publishing = self, let runs else { return false }
        self = .replacing(runs: runs, run: 0, position: runs.first?.lowerBound ?? 0)
        return true
    }

    /// The fetch is over, whichever way.
    mutating func end() {
        self = .ended
    }
}
