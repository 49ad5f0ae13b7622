import Foundation

/// The permanent IDs of a save's new objects, and their set for the did-save notification, made on
/// another thread while the store writes the objects' rows.
///
/// For a million new objects the set of their IDs was a sixth of the save's time on the
/// context's thread: an ID allocated per object, then hashed into a table far larger than the
/// cache. Their keys are known once the store has allocated them, before the first row is
/// written, so the IDs need not wait for the rows.
final class PermanentIDs: @unchecked Sendable {
    // @unchecked Sendable: the inputs never change; `made` is written by the making thread
    // before it signals `done`, and read by the context only after `wait()`.
    /// Where each run of one entity begins, by position: the objects themselves are not read
    /// here. Reading them (a retain and release each) fought the context's thread, writing the
    /// same objects' rows, for their cache lines: nearly a third of this thread's time went to those
    /// two atomic operations, and the context's retains of the objects got slower too.
    private let runs: [EntityRun]
    private let keys: [Int64]
    private let identity: StoreIdentity
    private let done = DispatchSemaphore(value: 0)
    private var waited = false
    /// The list by position stays although objects keep their IDs only with a bookkeeping
    /// record: a save that made only the set took a million-object insert from 2.06× raw SQLite
    /// to 2.45× (interleaved runs, 2026-11-30), likely because the list lets the IDs go in the
    /// order they were made, on the thread that releases the save's leftovers, and the set alone
    /// lets them go in hash order.
    private var made: (ids: [NSManagedObjectID?], set: Set<NSManagedObjectID>) = ([], [])

    /// A run of new objects of one entity: the position of its first.
    struct EntityRun {
        /// The position of the run's first object among the save's new objects.
        let start: Int
        /// The entity of every object of the run.
        let entity: NSEntityDescription
    }

    /// Starts making the IDs of the objects with `keys` (0 for an object whose key the write did
    /// not give, which gets none here), when a second thread helps with that many
    /// (`SecondThread.helps(with:)`); nil otherwise.
    ///
    /// - Parameters:
    ///   - runs: Where each run of one entity begins, in order; every position with a key lies
    ///     in one.
    ///   - keys: The objects' keys, by position.
    ///   - identity: Their store's identity.
    /// - Returns: The IDs being made, or nil.
    static func start(runs: [EntityRun], keys: [Int64], identity: StoreIdentity?) -> PermanentIDs? {
        guard SecondThread.helps(with: keys.count), !runs.isEmpty, let identity else { return nil }
        return PermanentIDs(runs: runs, keys: keys, identity: identity)
    }

    private init(runs: [EntityRun], keys: [Int64], identity: StoreIdentity) {
        self.runs = runs
        self.keys = keys
        self.identity = identity
        // A queue of its own, as `ChunkPipe` reads on: the save waits for it, so its progress must
        // not depend on the global pool having a thread free (a save may itself hold one).
        DispatchQueue(label: "OpenCoreData.PermanentIDs").async { self.make() }
    }

    private func make() {
        var ids: [NSManagedObjectID?] = []
        ids.reserveCapacity(keys.count)
        // Sparse as the save's other sets, for the same reason (`sparseSet`).
        var set = Set<NSManagedObjectID>(sparseFor: keys.count)
        var run = 0
        for (position, key) in keys.enumerated() {
            while run + 1 < runs.count, runs[run + 1].start <= position { run += 1 }
            guard key != 0 else {
                ids.append(nil)
                continue
            }
            let id = NSManagedObjectID(entity: runs[run].entity, storeIdentity: identity, primaryKey: key)
            ids.append(id)
            set.insert(id)
        }
        made = (ids, set)
        done.signal()
    }

    /// Waits until the IDs are made; returns them by position (nil where no key was given) and
    /// their set.
    func wait() -> (ids: [NSManagedObjectID?], set: Set<NSManagedObjectID>) {
        if !waited {
            done.wait()
            waited = true
        }
        return made
    }
}
