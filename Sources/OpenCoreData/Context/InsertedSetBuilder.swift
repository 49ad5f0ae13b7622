import Foundation

/// The set of inserted objects the next objects-did-change notification posts, built on another
/// thread while the objects are being inserted.
///
/// A save of a million new objects spent a fifth of its time hashing them into that set before
/// writing anything; the user's loop of inserts leaves the second core idle. The context hands
/// its new objects over whenever it has added enough since for a second thread to help
/// (`SecondThread.helps(with:)`), and when it posts the notification it takes the set, adding
/// the last few objects itself (`finish`).
///
/// The builder covers `insertedList[start..<handed]` and stays valid only while the list only
/// grows: whatever else changes the list resets the event, which discards the builder.
final class InsertedSetBuilder: @unchecked Sendable {
    // @unchecked Sendable: `set` is touched only on `queue`, and by the context's thread once
    // `queue` has run everything handed to it (`finish`, `discard`); the objects are only hashed
    // there (by address) and retained, both safe from any thread.
    /// Where this event's objects start in the context's list.
    let start: Int
    /// How far into the context's list objects have been handed over (the context's thread only).
    private(set) var handed: Int
    private var set: Set<NSManagedObject> = []
    private let queue = DispatchQueue(label: "OpenCoreData.InsertedSet")

    init(start: Int) {
        self.start = start
        handed = start
    }

    /// Hands `list[handed...]` over to be hashed on the builder's thread.
    func hand(_ list: [NSManagedObject]) {
        let chunk = Chunk(Array(list[handed...]))
        handed = list.count
        queue.async { [self] in
            // Built out of the field and put back once: inserting into the field wrote it back
            // for every object, and the context's thread reads `handed`, beside it, at every
            // insert; the cache line went back and forth between the cores, a miss per object
            // inserted (perf: 89% of `insert(_:)`'s own samples on that read).
            var building: Set<NSManagedObject> = []
            swap(&building, &set)
            // Grown eightfold once half its capacity is used (each growth hashes every element
            // again, a cache miss each): between a tenth and three eighths full, and for a
            // million objects the table `sparseSet` would make (2^22 buckets).
            let count = building.count + chunk.objects.count
            if building.capacity < count * 2 { building.reserveCapacity(count * 8) }
            for object in chunk.objects { building.insert(object) }
            swap(&building, &set)
        }
    }

    /// The set of `list[start...]`, the objects not handed over yet added here; nil when the set
    /// does not hold as many objects as that range (an object listed twice).
    func finish(_ list: [NSManagedObject]) -> Set<NSManagedObject>? {
        queue.sync {}
        var result = set
        set = []
        for object in list[handed...] { result.insert(object) }
        return result.count == list.count - start ? result : nil
    }

    /// Waits for the chunks handed over and drops the set here, so that no object's last
    /// reference goes on the builder's thread.
    func discard() {
        queue.sync {}
        set = []
    }

    /// Objects on their way to the builder's thread.
    private struct Chunk: @unchecked Sendable {
        // @unchecked Sendable: the context's thread gave the array up; only the queue reads it.
        let objects: [NSManagedObject]
        init(_ objects: [NSManagedObject]) { self.objects = objects }
    }
}
