import CHeapStats

/// The heap's bytes in use (glibc's mallinfo2, every arena): what live objects cost, without the
/// free memory malloc keeps for reuse that a resident-set figure would count.
enum Heap {
    static func bytesInUse() -> Int { Int(cheapstats_heap_in_use()) }
}
