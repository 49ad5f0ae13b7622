import CHeapStats

/// The heap's bytes in use (glibc's mallinfo2, every arena): what live objects cost, without the
/// free memory malloc keeps for reuse that a resident-set figure would count.
public enum Heap {
    public static func bytesInUse() -> Int { Int(cheapstats_heap_in_use()) }

    /// Returns the heap's free pages to the system: every run then pays for the fresh memory it
    /// touches, instead of reusing what the previous run (another way's) happened to leave.
    public static func releaseFreeMemory() { cheapstats_release_free_memory() }
}

/// The middle of measured values: what the tables show, robust to one slow run.
public enum Statistics {
    /// The median of `values`; NaN for none (a way not run, shown as "–").
    public static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The value below which `fraction` of `values` lie (nearest rank); NaN for none.
    public static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
