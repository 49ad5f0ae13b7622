import CHeapStats
import Synchronization

/// The heap's bytes in use (glibc's mallinfo2, every arena): what live objects cost, without the
/// free memory malloc keeps for reuse that a resident-set figure would count.
public enum Heap {
    public static func bytesInUse() -> Int { Int(cheapstats_heap_in_use()) }

    /// Returns the heap's free pages to the system: every run then pays for the fresh memory it
    /// touches, instead of reusing what the previous run (another way's) happened to leave.
    public static func releaseFreeMemory() { cheapstats_release_free_memory() }

    /// The highest `bytesInUse()` a run sampled: a run that lets go of memory as it goes (a
    /// batched result) ends lower than it peaked. Reset by `startPeak()`.
    private static let peak = Atomic<Int>(0)

    /// Starts watching for a peak at the heap's level now.
    public static func startPeak() { peak.store(bytesInUse(), ordering: .relaxed) }

    /// Records the heap's level now if it is the highest since `startPeak()`.
    public static func samplePeak() {
        let now = bytesInUse()
        _ = peak.max(now, ordering: .relaxed)
    }

    /// The highest level sampled since `startPeak()` (its own level if none was).
    public static var peakBytes: Int { peak.load(ordering: .relaxed) }
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
