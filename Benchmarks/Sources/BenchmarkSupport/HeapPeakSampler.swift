import Foundation
import Synchronization

/// The heap's largest growth over its level when made, sampled every quarter millisecond on a
/// thread of its own until `stop()`: a run that lets go as it goes (a save's sets freed on its
/// second thread, a loop of fetches) ends lower than it peaked, and samples taken only between
/// its steps miss what a step holds inside.
public final class HeapPeakSampler: @unchecked Sendable {
    // @unchecked Sendable: `stopped` is atomic, `done` a semaphore, and `Heap`'s peak atomic.
    private let baseline = Heap.bytesInUse()
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Starts sampling on a thread of its own.
    public init() {
        Heap.startPeak()
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Heap.samplePeak()
                usleep(250)
            }
            done.signal()
        }
    }

    /// Stops sampling.
    ///
    /// - Returns: The peak growth over the level at `init`, in bytes (the level now counts too).
    public func stop() -> Int {
        Heap.samplePeak()
        stopped.store(true, ordering: .relaxed)
        done.wait()
        return Heap.peakBytes - baseline
    }
}
