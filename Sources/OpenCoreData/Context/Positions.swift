/// Ascending positions in an array, kept as runs: the positions of the objects an asynchronous
/// fetch registered are usually every position, and a run costs 16 bytes where an `Int` each
/// cost 8 bytes a row.
struct Positions {
    /// Runs before the one being extended.
    private var closed: [Range<Int>] = []
    /// The last run, outside the array so that extending it writes no array element.
    private var open: Range<Int>?

    /// Adds `position`, which must be greater than every position already in.
    @inline(__always)
    mutating func append(_ position: Int) {
        if let run = open, run.upperBound == position {
            open = run.lowerBound..<(position + 1)
            return
        }
        if let run = open { closed.append(run) }
        open = position..<(position + 1)
    }

    /// Every position, in ascending runs.
    var runs: [Range<Int>] { closed + (open.map { [$0] } ?? []) }

    /// The greatest position.
    var last: Int? { open.map { $0.upperBound - 1 } }

    /// Removes the greatest position.
    mutating func removeLast() {
        guard let run = open else { return }
        open = run.count > 1 ? run.lowerBound..<(run.upperBound - 1) : closed.popLast()
    }
}
