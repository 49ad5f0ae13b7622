/// Ascending positions in an array, kept as runs: the positions of the objects an asynchronous
/// fetch registered are usually every position, and a run costs 16 bytes where an `Int` each
/// cost 8 bytes a row.
struct Positions {
    private var runs: [Range<Int>] = []

    /// Adds `position`, which must be greater than every position already in.
    mutating func append(_ position: Int) {
        if let last = runs.indices.last, runs[last].upperBound == position {
            runs[last] = runs[last].lowerBound..<(position + 1)
        } else {
            runs.append(position..<(position + 1))
        }
    }

    /// The greatest position.
    var last: Int? { runs.last.map { $0.upperBound - 1 } }

    /// Removes the greatest position.
    mutating func removeLast() {
        guard let last = runs.indices.last else { return }
        if runs[last].count == 1 {
            runs.removeLast()
        } else {
            runs[last] = runs[last].lowerBound..<(runs[last].upperBound - 1)
        }
    }
}
