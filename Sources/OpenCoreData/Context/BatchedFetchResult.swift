/// The objects of a fetch, made a batch at a time as the reader reaches them and let go of once
/// it has moved on: what `fetchBatchSize` gives on Apple's platforms, where `fetch(_:)` returns
/// an `NSArray` that faults its objects in by batches. A Swift `[T]` holds every element from
/// the start, so on Linux a fetch that must not hold a million objects at once asks for this
/// collection instead (`NSManagedObjectContext.batchedFetch(_:)`).
///
/// The fetch reads the key of every matching row at once (16 bytes a row, as Core Data reads the
/// IDs); the objects of a batch are read in one query when an index of the batch is first
/// reached, while the next batch is read on another thread if the reading goes forward. The
/// collection holds the objects of the last two batches it made; objects of earlier batches that
/// nothing else holds and that have no unsaved changes are released, from the collection and from
/// the context, as Core Data's weak registry lets them go. Reaching a released index again reads
/// its batch again.
///
/// Use it on its context's queue only, like the objects it returns; it is valid until the
/// context is reset. When the context has unsaved changes the request includes, or is a child
/// context, the objects are fetched as `fetch(_:)` fetches them and the collection holds them all.
public final class BatchedFetchResult<Element: NSManagedObject>: RandomAccessCollection {
    public typealias Index = Int

    /// How many objects a batch holds: the request's `fetchBatchSize`, or
    /// `defaultBatchSize` when that is 0.
    public let batchSize: Int
    /// The batch size a request without `fetchBatchSize` gets.
    public static var defaultBatchSize: Int { 1_000 }

    private let context: NSManagedObjectContext
    private let source: BatchSource?
    /// Every object, when the fetch had to be made whole (pending changes, a child context).
    private let wholeResult: [NSManagedObject]?
    /// The batches made last, newest last: at most `keptBatches`.
    private var kept: [(number: Int, objects: [NSManagedObject])] = []
    private static var keptBatches: Int { 2 }
    /// The batch being read ahead, and its rows.
    private var readingAhead: (number: Int, rows: PendingRows)?

    init(context: NSManagedObjectContext, batchSize: Int, source: BatchSource) {
        self.context = context
        self.batchSize = batchSize
        self.source = source
        self.wholeResult = nil
    }

    init(context: NSManagedObjectContext, batchSize: Int, wholeResult: [NSManagedObject]) {
        self.context = context
        self.batchSize = batchSize
        self.source = nil
        self.wholeResult = wholeResult
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { wholeResult?.count ?? source!.references.count }

    /// The object at `position`, made with the rest of its batch if the batch is not held.
    ///
    /// - Parameter position: An index from `startIndex` up to, not including, `endIndex`.
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < endIndex, "Index \(position) out of range 0..<\(endIndex)")
        if let wholeResult { return wholeResult[position] as! Element }
        let number = position / batchSize
        let offset = position - number * batchSize
        if let held = kept.first(where: { $0.number == number }) { return held.objects[offset] as! Element }
        let objects = makeBatch(number)
        keep(number, objects)
        return objects[offset] as! Element
    }

    /// The objects of batch `number`, read from the store (or taken from the read ahead) and
    /// registered in the context.
    private func makeBatch(_ number: Int) -> [NSManagedObject] {
        let source = source!
        let range = positions(ofBatch: number)
        var pending: PendingRows?
        if let ahead = readingAhead {
            readingAhead = nil
            if ahead.number == number { pending = ahead.rows }
        }
        let forward = kept.last.map { $0.number == number - 1 } ?? (number == 0)
        if forward, range.upperBound < source.references.count {
            // Read on the store's thread while this one registers the batch.
            if let rows = source.startReading(positions(ofBatch: number + 1)) { readingAhead = (number + 1, rows) }
        }
        return context.objects(of: source, at: range, readAhead: pending)
    }

    private func positions(ofBatch number: Int) -> Range<Int> {
        number * batchSize..<Swift.min((number + 1) * batchSize, endIndex)
    }

    /// Holds `objects` as the newest batch and lets the oldest go once more than `keptBatches`
    /// are held.
    private func keep(_ number: Int, _ objects: [NSManagedObject]) {
        kept.append((number, objects))
        guard kept.count > Self.keptBatches else { return }
        // The registry holds objects weakly: those of the passed batch nothing else holds go now.
        kept.removeFirst()
    }
}

/// Where a batched result's objects come from: the keys of the rows its fetch selected, in
/// order, with the store of each run of them.
struct BatchSource {
    /// The fetched rows' entity numbers and keys.
    let references: [ObjectReference]
    /// The stores of the references: `stores[i]` holds those from `storeStarts[i]` on.
    let stores: [any RowReadingStore]
    let storeStarts: [Int]
    /// The requested entity's hierarchy root, whose table holds every fetched row.
    let root: NSEntityDescription
    /// The numbers of the request's entities (one, or a few subentities): a row of another
    /// entity (the file changed between the two reads) is left to a fault of the fetched ID.
    let entityNumbers: [Int32]
    let returnsObjectsAsFaults: Bool
    let prefetching: [String]

    /// The runs of `range` that lie in one store each.
    func storeRuns(_ range: Range<Int>) -> [(store: any RowReadingStore, range: Range<Int>)] {
        var runs: [(store: any RowReadingStore, range: Range<Int>)] = []
        for (index, start) in storeStarts.enumerated() {
            let end = index + 1 < storeStarts.count ? storeStarts[index + 1] : references.count
            let run = range.clamped(to: start..<end)
            if !run.isEmpty { runs.append((stores[index], run)) }
        }
        return runs
    }

    func primaryKeys(_ range: Range<Int>) -> [Int64] { references[range].map(\.primaryKey) }

    /// Starts reading the rows of `range` on the store's thread, when the range lies in one store
    /// that can.
    func startReading(_ range: Range<Int>) -> PendingRows? {
        let runs = storeRuns(range)
        guard runs.count == 1 else { return nil }
        return runs[0].store.startReadingRows(of: root, primaryKeys: primaryKeys(range))
    }
}
