import Foundation
import GRDB
import GRDBSQLite

/// Steps a statement and turns its rows into elements, as many at a time as asked, so that a read
/// can stop after a chunk and go on later, on this thread or another (never two at once).
protocol SQLiteChunkReader {
    associatedtype Element
    /// Appends up to `limit` more elements to `chunk`; true once the statement has none left.
    mutating func read(into chunk: inout [Element], limit: Int) throws -> Bool
}

/// A fetch's read in chunks: the calling thread reads the first chunk itself; when rows remain,
/// a reading thread steps the rest of the statement while the caller turns each chunk into
/// objects or IDs. On two cores the two halves of a large fetch then overlap, and a small fetch
/// pays nothing for it.
extension SQLiteStore {
    /// Rows a chunk holds: enough that the hand-over costs nothing next to them, few enough that
    /// the reading thread starts early.
    static var rowsPerChunk: Int { 4_096 }

    /// The rows of `query` given to `body` a chunk at a time.
    func readInChunks(_ query: StoreQuery, _ body: (inout [StoreRow]) throws -> Void) throws {
        // A sort in memory needs every row first.
        if SQLiteMemorySort.canOrder(query) {
            var rows = try fetchRows(query)
            return try body(&rows)
        }
        let sql = try SQLiteQueryBuilder(store: self).select(query)
        let plan = plans[Int32(query.entity.layout!.root.layout!.entityNumber)]!
        try statementRead { db in
            try withReadStatement(sql, db: db) { statement in
                let reader = SQLiteRowReader(statement, plan: plan, values: query.includesPropertyValues, db: db, store: self)
                try readInChunks(reader, expectedRows: query.fetchLimit > 0 ? query.fetchLimit : nil, body)
            }
        }
    }

    /// Runs `reader` to its end, handing its chunks to `body` in order. Called inside the read
    /// that holds the reader's connection: `body` must not use the store.
    ///
    /// - Parameter expectedRows: The most rows the read can give (a fetch limit), when known: the
    ///   first chunk is made that small, as a ten-row fetch has no use for a chunk's 128 KB.
    func readInChunks<Reader: SQLiteChunkReader>(
        _ reader: consuming Reader, expectedRows: Int? = nil, _ body: (inout [Reader.Element]) throws -> Void
    ) throws {
        var reader = reader
        var chunk: [Reader.Element] = []
        chunk.reserveCapacity(min(expectedRows ?? Self.rowsPerChunk, Self.rowsPerChunk))
        var done = try reader.read(into: &chunk, limit: Self.rowsPerChunk)
        guard !done, SecondThread.helps else {
            while true {
                try body(&chunk)
                if done { return }
                chunk = []
                chunk.reserveCapacity(Self.rowsPerChunk)
                done = try reader.read(into: &chunk, limit: Self.rowsPerChunk)
            }
        }
        // Moved into the pipe: a copy left here would keep the statement alive past the reading
        // thread.
        let pipe = ChunkPipe.reading(consume reader)
        pipe.start(chunk: Self.rowsPerChunk)
        // The reading thread steps this connection's statement: the read must not return it to
        // the pool before that thread is done with it.
        defer { pipe.stopAndWait() }
        try body(&chunk)
        chunk = []
        while var next = try pipe.take() { try body(&next) }
    }
}

/// The error a failed `sqlite3_step` of `statement` reports. The statement is reset once the
/// message is read: a statement keeps its step's error until then, and GRDB, reusing a cached
/// statement, resets it with `try!` and would stop the program on that old error (a damaged file
/// made the next read of the same table trap).
func stepFailure(_ code: Int32, _ statement: Statement, connection: OpaquePointer?) -> DatabaseError {
    let error = DatabaseError(
        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: statementSQL(statement))
    sqlite3_reset(statement.sqliteStatement)
    return error
}

/// `statement`'s SQL, read from SQLite: GRDB's `Statement.sql` stops the program on any thread
/// but its connection's queue, and a chunked read or a pipelined insert steps on another.
func statementSQL(_ statement: Statement) -> String {
    sqlite3_sql(statement.sqliteStatement).map { String(cString: $0) } ?? ""
}

/// Chunks from the reading thread to the caller, in order, with the reader's end (or error), and
/// the caller's wish to stop.
private final class ChunkPipe<Element>: @unchecked Sendable {
    // @unchecked Sendable: `state` and `read` are touched under `condition`'s lock only.
    private let condition = NSCondition()
    private var state = ChunkPipeState<Element>()
    /// Reads the next chunk (true once none is left). Held by the pipe, not by the reading block,
    /// so that the reader it holds (and its statement) is gone before the caller hears that the
    /// read has finished: the statement must be finalized while the caller still holds the
    /// connection.
    private var read: ((inout [Element], Int) throws -> Bool)?

    private init(_ read: @escaping (inout [Element], Int) throws -> Bool) {
        self.read = read
    }

    /// A pipe for `reader`'s chunks; the pipe owns the reader from now on.
    static func reading<Reader: SQLiteChunkReader>(_ reader: consuming Reader) -> ChunkPipe<Element> where Reader.Element == Element {
        var reader = reader
        return ChunkPipe { chunk, limit in try reader.read(into: &chunk, limit: limit) }
    }

    /// Starts reading on a queue of its own: it gets a thread even when every thread of the global
    /// pool is a caller waiting for its own reader.
    func start(chunk: Int) {
        DispatchQueue(label: "OpenCoreData.SQLiteStore.read").async { self.readAll(chunk: chunk) }
    }

    /// On the reading thread: reads chunk after chunk until the statement is done or the caller
    /// stops.
    private func readAll(chunk: Int) {
        var outcome: (any Error)?
        do {
            condition.lock()
            let read = self.read.take()!
            condition.unlock()
            var finished = false
            while !finished, !isStopping {
                var elements: [Element] = []
                elements.reserveCapacity(chunk)
                finished = try read(&elements, chunk)
                condition.lock()
                state.put(elements)
                condition.signal()
                condition.unlock()
            }
        } catch {
            outcome = error
        }
        condition.lock()
        state.finish(outcome)
        condition.broadcast()
        condition.unlock()
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.isStopping
    }

    /// The next chunk, waiting for it; nil once the reader has finished and every chunk is taken.
    func take() throws -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch state.take() {
            case .chunk(let elements): return elements
            case .wait: condition.wait()
            case .end(let error?): throw error
            case .end(nil): return nil
            }
        }
    }

    /// Asks the reader to stop after its chunk and waits until it has.
    func stopAndWait() {
        condition.lock()
        state.stop()
        while !state.isFinished { condition.wait() }
        condition.unlock()
    }
}

/// The lifecycle of a chunked read seen by both its threads: reading, asked to stop (the reader
/// stops after its chunk), finished (with the reader's error, if any); and the chunks read but
/// not yet taken, in order.
struct ChunkPipeState<Element> {
    enum Phase {
        case reading
        case stopping
        case finished((any Error)?)
    }

    /// What the caller's `take()` finds.
    enum Taken {
        /// The next chunk, moved out.
        case chunk([Element])
        /// None yet: wait for the reader.
        case wait
        /// The reader finished and every chunk is taken: its error, if any.
        case end((any Error)?)
    }

    private(set) var phase = Phase.reading
    private var chunks: [[Element]] = []
    private var next = 0

    var isStopping: Bool {
        if case .stopping = phase { return true }
        return false
    }

    var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    /// The reader's next chunk.
    mutating func put(_ elements: [Element]) {
        chunks.append(elements)
    }

    /// The reader is done: reading or stopping becomes finished.
    mutating func finish(_ error: (any Error)?) {
        phase = .finished(error)
    }

    /// The caller wants no more: reading becomes stopping; a finished read stays finished.
    mutating func stop() {
        if case .reading = phase { phase = .stopping }
    }

    /// The caller takes the next chunk, if there is one.
    mutating func take() -> Taken {
        if next < chunks.count {
            // Moved out, so that the caller holds the only reference and can take each row's
            // values in place.
            var elements: [Element] = []
            swap(&elements, &chunks[next])
            next += 1
            if next == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                next = 0
            }
            return .chunk(elements)
        }
        if case .finished(let error) = phase { return .end(error) }
        return .wait
    }
}
