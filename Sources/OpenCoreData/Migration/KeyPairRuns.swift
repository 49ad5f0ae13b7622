/// Pairs of row keys, in the order they were added, kept as runs: pairs `(s, d)`, `(s + 1, d + 1)`,
/// … share one entry. A migration that reads sources in key order into a new store, which gives
/// keys in the order objects are saved, pairs consecutive keys with consecutive keys, so the
/// associations of a million instances take a few entries instead of a million.
struct KeyPairRuns {
    private struct Run {
        let source: UInt64
        let destination: UInt64
        var count: Int
        /// The position of the run's first pair among all pairs.
        let position: Int
    }

    private var runs: [Run] = []
    /// How many pairs there are.
    private(set) var count = 0
    /// The longest run: a lookup looks back this far from the key among runs ordered by start.
    private var longest = 0
    /// Run indices by source start and by destination start, made when first needed; nil while
    /// the runs are in that order already or the order must be remade.
    private var bySource: [Int32]?
    private var byDestination: [Int32]?
    private var sourcesAscending = true
    private var destinationsAscending = true

    mutating func append(source: UInt64, destination: UInt64) {
        if var last = runs.last, last.source &+ UInt64(last.count) == source, last.destination &+ UInt64(last.count) == destination {
            last.count += 1
            runs[runs.count - 1] = last
            longest = max(longest, last.count)
        } else {
            if let last = runs.last {
                if source < last.source { sourcesAscending = false }
                if destination < last.destination { destinationsAscending = false }
            }
            runs.append(Run(source: source, destination: destination, count: 1, position: count))
            longest = max(longest, 1)
            bySource = nil
            byDestination = nil
        }
        count += 1
    }

    /// The pair at `position`, in the order they were added.
    func pair(at position: Int) -> (source: UInt64, destination: UInt64) {
        var low = 0, high = runs.count
        while low + 1 < high {
            let middle = (low + high) / 2
            if runs[middle].position <= position { low = middle } else { high = middle }
        }
        let run = runs[low], offset = UInt64(position - run.position)
        return (run.source + offset, run.destination + offset)
    }

    /// The destinations paired with source `key`, in the order they were added.
    mutating func destinations(ofSource key: UInt64) -> [UInt64] {
        if bySource == nil, !sourcesAscending { bySource = order(by: \.source) }
        return matches(key, order: bySource, start: \.source).map { runs[$0.run].destination + $0.offset }
    }

    /// The sources paired with destination `key`, in the order they were added.
    mutating func sources(ofDestination key: UInt64) -> [UInt64] {
        if byDestination == nil, !destinationsAscending { byDestination = order(by: \.destination) }
        return matches(key, order: byDestination, start: \.destination).map { runs[$0.run].source + $0.offset }
    }

    private func order(by start: KeyPath<Run, UInt64>) -> [Int32] {
        (0..<Int32(runs.count)).sorted { runs[Int($0)][keyPath: start] < runs[Int($1)][keyPath: start] }
    }

    /// The runs holding `key` on the side `start` names, with the key's offset in each, in the
    /// order the pairs were added.
    private func matches(_ key: UInt64, order: [Int32]?, start: KeyPath<Run, UInt64>) -> [(run: Int, offset: UInt64)] {
        let index = { (rank: Int) in order.map { Int($0[rank]) } ?? rank }
        // The first rank whose run starts after the key; runs that hold it start before.
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[index(middle)][keyPath: start] <= key { low = middle + 1 } else { high = middle }
        }
        var found: [(run: Int, offset: UInt64)] = []
        var rank = low - 1
        while rank >= 0 {
            let run = runs[index(rank)]
            let first = run[keyPath: start]
            // No run starting this far back is long enough to reach the key.
            if key - first >= UInt64(longest) { break }
            if key - first < UInt64(run.count) { found.append((index(rank), key - first)) }
            rank -= 1
        }
        return found.sorted { runs[$0.run].position + Int($0.offset) < runs[$1.run].position + Int($1.offset) }
    }
}
