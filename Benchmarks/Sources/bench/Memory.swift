import CHeapStats

/// The heap's bytes in use (glibc's mallinfo2, every arena): what live objects cost, without the
/// free memory malloc keeps for reuse that a resident-set figure would count.
enum Heap {
    static func bytesInUse() -> Int { Int(cheapstats_heap_in_use()) }

    /// Returns the heap's free pages to the system: every run then pays for the fresh memory it
    /// touches, instead of reusing what the previous run (another way's) happened to leave.
    static func releaseFreeMemory() { cheapstats_release_free_memory() }
}
