import Foundation
import GRDB
import GRDBSQLite

/// A batch insert on two cores: the caller's thread calls the request's handler and converts its
/// values into rows while another thread binds and steps the rows converted before. The two
/// halves cost about the same for the tutorials' items, and each was the other's wait.
///
/// Only for entities without uniqueness constraints (a conflicting row is resolved with queries
/// through GRDB, which belong on the thread that holds the write) and without transformable
/// attributes (binding one runs the user's value transformer, which stays on the caller's thread).
extension SQLiteStore {
    /// Rows handed over at a time: a whole number of multi-row statements.
    static func pipelineChunk(perStatement: Int) -> Int { perStatement * 64 }

    /// Writes every row of `rows` with `writer`, a chunk at a time on another thread, and returns
    /// once all are written; throws the first error of either side (nothing is then committed:
    /// the caller's transaction rolls back).
    func insertPipelined(_ rows: BatchInsertRows, writer: BatchInsertWriter) throws {
        let chunk = Self.pipelineChunk(perStatement: writer.perStatement)
        let pipe = RowChunkPipe(buffers: 3, rows: chunk, defaults: rows.defaults)
        // Unretained on the writing thread: its block may be released after the caller has
        // moved on, and the last release of the writer (its statements) or of the pipe (rows of
        // the user's values) must happen here, inside the write, not there.
        let writing = Unmanaged.passUnretained(writer)
        let piping = Unmanaged.passUnretained(pipe)
        defer { withExtendedLifetime((writer, pipe)) {} }
        DispatchQueue(label: "OpenCoreData.BatchInsert").async {
            let (writer, pipe) = (writing.takeUnretainedValue(), piping.takeUnretainedValue())
            while let (buffer, count) = pipe.take() {
                do {
                    try writer.write(buffer, count: count)
                } catch {
                    pipe.writerStopped(error)
                    return
                }
                pipe.giveBack(consume buffer)
            }
            pipe.writerStopped(nil)
        }
        var makerError: (any Error)?
        do {
            produce: while var buffer = pipe.takeEmpty() {
                var count = 0
                while count < chunk {
                    guard try rows.next(into: &buffer[count]) else {
                        if count > 0 { pipe.put(consume buffer, count: count) }
                        break produce
                    }
                    count += 1
                }
                pipe.put(consume buffer, count: count)
            }
        } catch {
            makerError = error
        }
        pipe.close()
        let writerError = pipe.waitForConsumer()
        if let error = makerError ?? writerError { throw error }
    }
}

/// Binds and steps the rows of a batch insert, `perStatement` rows a statement, giving them
/// consecutive keys from `nextKey`.
final class BatchInsertWriter: @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time, handed over through `RowChunkPipe`.
    let perStatement: Int
    private let many: Statement?
    /// The one-row INSERT, also for a caller that steps rows itself (`insertResolvingConflicts`).
    let one: Statement
    private let connection: OpaquePointer?
    private let writes: [StoreColumnWrite]
    private let parametersPerRow: Int32
    private let text: SQLiteTextBuffers
    /// The key the next row takes.
    private(set) var nextKey: Int64

    init(many: Statement?, one: Statement, perStatement: Int, writes: [StoreColumnWrite], firstKey: Int64, db: Database) {
        self.many = many
        self.one = one
        self.perStatement = many == nil ? 1 : perStatement
        connection = db.sqliteConnection
        self.writes = writes
        parametersPerRow = Int32(writes.count + 1)
        text = SQLiteTextBuffers(parameters: Int(parametersPerRow) * perStatement)
        nextKey = firstKey
    }

    /// Moves to the next key after a row the caller inserted itself.
    func skipKey() { nextKey += 1 }

    /// Binds `slots` as the row of key `key` whose parameters start at `first`.
    func bind(_ slots: SlotRow, key: Int64, to statement: OpaquePointer, from first: Int32) {
        sqlite3_bind_int64(statement, first, key)
        for (offset, write) in writes.enumerated() {
            guard case .attribute(let attribute) = write.kind else { continue }
            let value = write.value(of: slots[write.slot])
            let index = first + 1 + Int32(offset)
            if case .string(let string) = value {
                text.bindText(string, to: statement, at: index)
            } else {
                SQLiteBind.bind(value, attribute: attribute, to: statement, at: index)
            }
        }
    }

    /// Steps `statement` once and resets it; the result code and the extended one.
    func step(_ statement: OpaquePointer) -> (code: Int32, extended: Int32) {
        let code = sqlite3_step(statement)
        let extended = sqlite3_extended_errcode(connection)
        sqlite3_reset(statement)
        return (code, extended)
    }

    /// The error a failed step of `statement` reports.
    func failure(_ extended: Int32, _ statement: Statement) -> DatabaseError {
        stepFailure(extended, statement, connection: connection)
    }

    /// Writes the first `count` rows of `rows`: whole statements of `perStatement` rows, then
    /// the rest one by one.
    func write(_ rows: [SlotRow], count: Int) throws {
        var start = 0
        if let many, perStatement > 1 {
            let statement = many.sqliteStatement
            while count - start >= perStatement {
                for row in 0..<perStatement {
                    bind(rows[start + row], key: nextKey + Int64(row), to: statement, from: 1 + Int32(row) * parametersPerRow)
                }
                let (code, extended) = step(statement)
                guard code == SQLITE_DONE else { throw failure(extended, many) }
                nextKey += Int64(perStatement)
                start += perStatement
            }
        }
        let statement = one.sqliteStatement
        while start < count {
            bind(rows[start], key: nextKey, to: statement, from: 1)
            let (code, extended) = step(statement)
            guard code == SQLITE_DONE else { throw failure(extended, one) }
            nextKey += 1
            start += 1
        }
    }
}

/// Chunks of rows from the thread that makes them to the thread that writes them, and the
/// emptied buffers back, so that each buffer's rows are rewritten in place (no allocation a row).
private final class RowChunkPipe: @unchecked Sendable {
    // @unchecked Sendable: `state` is touched under `condition`'s lock only; a buffer is held by
    // one side at a time.
    private let condition = NSCondition()
    private var state: RowPipeState<[SlotRow]>

    init(buffers: Int, rows: Int, defaults: SlotRow) {
        state = RowPipeState(empty: (0..<buffers).map { _ in Array(repeating: defaults, count: rows) })
    }

    /// Runs `transition` under the lock, waiting while it answers nil, and wakes the other side.
    private func next<Answer>(_ transition: (inout RowPipeState<[SlotRow]>) -> Answer?) -> Answer {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let answer = transition(&state) {
                condition.broadcast()
                return answer
            }
            condition.wait()
        }
    }

    /// An empty buffer for the maker; nil once the writer has stopped.
    func takeEmpty() -> [SlotRow]? {
        next { state -> [SlotRow]?? in
            switch state.takeEmpty() {
            case .buffer(let buffer): .some(buffer)
            case .stop: .some(nil)
            case .wait: nil
            }
        }
    }

    /// Runs `transition`, which moves no buffer, under the lock and wakes the other side.
    /// `put` and `giveBack` lock themselves: a buffer captured by a closure would have a second
    /// reference, and the next holder's writes would copy it.
    private func change(_ transition: (inout RowPipeState<[SlotRow]>) -> Void) {
        condition.lock()
        transition(&state)
        condition.broadcast()
        condition.unlock()
    }

    func put(_ buffer: consuming [SlotRow], count: Int) {
        condition.lock()
        state.put(buffer, count: count)
        condition.broadcast()
        condition.unlock()
    }

    /// The next full buffer for the writer; nil once the maker has closed and all are taken.
    func take() -> ([SlotRow], Int)? {
        next { state -> ([SlotRow], Int)?? in
            switch state.take() {
            case .rows(let buffer, let count): .some((buffer, count))
            case .end: .some(nil)
            case .wait: nil
            }
        }
    }

    func giveBack(_ buffer: consuming [SlotRow]) {
        condition.lock()
        state.giveBack(buffer)
        condition.broadcast()
        condition.unlock()
    }

    /// The writer has stopped, with the error that stopped it, if any.
    func writerStopped(_ error: (any Error)?) {
        change { $0.writerStopped(error) }
    }

    /// No more buffers come: the writer stops once it has written those put so far.
    func close() {
        change { $0.close() }
    }

    /// Waits for the writer to stop; its error, if any. The rows left in the pipe are dropped
    /// here, on the maker's thread.
    func waitForConsumer() -> (any Error)? {
        next { state -> (any Error)?? in
            switch state.finish() {
            case .wait: nil
            case .done(let error): .some(error)
            }
        }
    }
}
