import Foundation
import GRDB

/// A fetch's read in chunks: the calling thread reads the first chunk itself; when rows remain,
/// a reading thread steps the rest of the statement while the caller turns each chunk into
/// objects. On two cores the two halves of a large fetch then overlap, and a small fetch pays
/// nothing for it.
extension SQLiteStore {
    /// Rows a chunk holds: enough that the hand-over costs nothing next to them, few enough that
    /// the reading thread starts early.
    static var rowsPerChunk: Int { 4_096 }

    /// Whether a second thread may read: with one core it would only take turns with the caller.
    private static let readsAside = ProcessInfo.processInfo.activeProcessorCount > 1

    func readInChunks(_ query: StoreQuery, _ body: (inout [StoreRow]) throws -> Void) throws {
        let builder = SQLiteQueryBuilder(store: self)
        // A sort in memory needs every row first.
        if SQLiteMemorySort.canOrder(query) {
            var rows = try fetchRows(query)
            return try body(&rows)
        }
        let sql = try builder.select(query)
        let plan = plans[Int32(query.entity.layout!.root.layout!.entityNumber)]!
        try pool!.read { db in
            let statement = try db.makeStatement(sql: sql.sql)
            statement.setUncheckedArguments(sql.arguments)
            var reader = SQLiteRowReader(statement, plan: plan, values: query.includesPropertyValues, db: db, store: self)
            var chunk: [StoreRow] = []
            chunk.reserveCapacity(Self.rowsPerChunk)
            var done = try reader.read(into: &chunk, limit: Self.rowsPerChunk)
            guard !done, Self.readsAside else {
                while true {
                    try body(&chunk)
                    if done { return }
                    chunk = []
                    chunk.reserveCapacity(Self.rowsPerChunk)
                    done = try reader.read(into: &chunk, limit: Self.rowsPerChunk)
                }
            }
            // Consumed: a copy left here would keep the statement alive past the reading thread.
            let pipe = RowPipe(consume reader)
            // A queue of its own: it gets a thread even when every thread of the global pool is a
            // caller waiting for its own reader.
            DispatchQueue(label: "OpenCoreData.SQLiteStore.read").async { pipe.readAll(chunk: Self.rowsPerChunk) }
            // The reading thread steps this connection's statement: the read must not return it to
            // the pool before that thread is done with it.
            defer { pipe.stopAndWait() }
            try body(&chunk)
            chunk = []
            while var rows = try pipe.take() { try body(&rows) }
        }
    }
}

/// Chunks of rows from the reading thread to the caller, in order, with the reader's end (or
/// error), and the caller's wish to stop.
private final class RowPipe: @unchecked Sendable {
    // @unchecked Sendable: every field is touched under `condition`'s lock.
    private let condition = NSCondition()
    private var chunks: [[StoreRow]] = []
    private var next = 0
    private var finished = false
    private var error: (any Error)?
    private var stopped = false
    /// Held by the pipe, not by the reading block, so that the reader (and its statement) is gone
    /// before the caller hears that the read has finished: the statement must be finalized while
    /// the caller still holds the connection.
    private var reader: SQLiteRowReader?

    init(_ reader: SQLiteRowReader) {
        self.reader = reader
    }

    /// On the reading thread: reads chunk after chunk until the statement is done or the caller
    /// stops.
    func readAll(chunk: Int) {
        var outcome: (any Error)?
        do {
            condition.lock()
            var reader = self.reader.take()!
            condition.unlock()
            var finished = false
            while !finished, !isStopped {
                var rows: [StoreRow] = []
                rows.reserveCapacity(chunk)
                finished = try reader.read(into: &rows, limit: chunk)
                put(rows)
            }
        } catch {
            outcome = error
        }
        finish(outcome)
    }

    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    func put(_ rows: [StoreRow]) {
        condition.lock()
        chunks.append(rows)
        condition.signal()
        condition.unlock()
    }

    func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        self.error = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next chunk, waiting for it; nil once the reader has finished and every chunk is taken.
    func take() throws -> [StoreRow]? {
        condition.lock()
        defer { condition.unlock() }
        while next == chunks.count, !finished { condition.wait() }
        if next < chunks.count {
            // Moved out, so that the caller holds the only reference and can take each row's
            // values in place.
            var rows: [StoreRow] = []
            swap(&rows, &chunks[next])
            next += 1
            if next == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                next = 0
            }
            return rows
        }
        if let error { throw error }
        return nil
    }

    /// Asks the reader to stop after its chunk and waits until it has.
    func stopAndWait() {
        condition.lock()
        stopped = true
        while !finished { condition.wait() }
        condition.unlock()
    }
}
