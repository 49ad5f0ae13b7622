/// The lifecycle of a pipelined batch insert, seen by its two threads: the maker fills buffers
/// with rows and puts them in, the writer takes them, writes them and gives them back.
///
/// Filling, then closed (the maker has put its last buffer; the writer drains the rest), and
/// writer stopped, with its error if one stopped it early, which also tells a maker still filling
/// to stop. Each transition says what the caller may do; a `wait` answer means "wait for the
/// other side and ask again". Kept apart from the locking so that each transition is tested alone.
struct RowPipeState<Buffer> {
    enum Phase {
        case filling
        case closed
        case writerStopped((any Error)?)
    }

    /// What the maker's request for an empty buffer finds.
    enum ForMaker {
        case buffer(Buffer)
        /// Every buffer is full or being written.
        case wait
        /// The writer has stopped: make no more rows.
        case stop
    }

    /// What the writer's request for rows finds.
    enum ForWriter {
        /// The oldest full buffer and how many of its rows are filled.
        case rows(Buffer, Int)
        case wait
        /// The maker closed the pipe and every buffer is written.
        case end
    }

    /// What the maker finds when it waits for the writer at the end.
    enum Finished {
        case wait
        /// The writer has stopped, with its error, if any.
        case done((any Error)?)
    }

    private(set) var phase = Phase.filling
    private var empty: [Buffer]
    private var full: [(Buffer, Int)] = []

    init(empty: [Buffer]) {
        self.empty = empty
    }

    mutating func takeEmpty() -> ForMaker {
        if case .writerStopped = phase { return .stop }
        return empty.popLast().map(ForMaker.buffer) ?? .wait
    }

    mutating func put(_ buffer: consuming Buffer, count: Int) {
        full.append((buffer, count))
    }

    mutating func take() -> ForWriter {
        if !full.isEmpty {
            let (buffer, count) = full.removeFirst()
            return .rows(buffer, count)
        }
        if case .filling = phase { return .wait }
        return .end
    }

    mutating func giveBack(_ buffer: consuming Buffer) {
        empty.append(buffer)
    }

    /// The writer has stopped: filling or closed becomes writer stopped.
    mutating func writerStopped(_ error: (any Error)?) {
        phase = .writerStopped(error)
    }

    /// The maker puts no more: filling becomes closed; a stopped writer stays stopped.
    mutating func close() {
        if case .filling = phase { phase = .closed }
    }

    /// The maker's last wait: done once the writer has stopped, dropping the buffers it did not
    /// write (on the maker's thread, which holds the rows' values).
    mutating func finish() -> Finished {
        guard case .writerStopped(let error) = phase else { return .wait }
        full.removeAll()
        return .done(error)
    }
}
