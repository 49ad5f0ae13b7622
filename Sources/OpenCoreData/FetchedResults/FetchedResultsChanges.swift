/// One batch of changes to a fetched results controller's results: where the changed objects were,
/// where they go, and what the delegate is told.
///
/// Only the objects the context reported change place; the others keep their order, which is still
/// sorted. So the work is linear in the results (to find the changed objects and to shift the
/// array) and logarithmic per changed object (to find its new place), not a sort of the results.
struct FetchedResultsChanges {
    /// The objects a notification named, with what it said of them.
    struct Input {
        private(set) var candidates: [NSManagedObject] = []
        /// Deleted or invalidated: out of the results whatever their values.
        private(set) var leaving = Set<ObjectIdentifier>()
        /// Updated or refreshed: told as updates when they stay in place.
        private(set) var changedInPlace = Set<ObjectIdentifier>()
        private var seen = Set<ObjectIdentifier>()

        mutating func note(_ object: NSManagedObject, leaving: Bool, changedInPlace: Bool) {
            let id = ObjectIdentifier(object)
            if seen.insert(id).inserted { candidates.append(object) }
            if leaving { self.leaving.insert(id) }
            if changedInPlace { self.changedInPlace.insert(id) }
        }
    }

    /// An object the delegate is told about, with its positions before and after (-1: none).
    struct Entry {
        let object: NSManagedObject
        let from: Int
        let to: Int
        let changedInPlace: Bool
    }

    /// What the delegate is told, by kind.
    struct Report {
        var deleted: [Entry] = []
        var inserted: [Entry] = []
        var moved: [Entry] = []
        var updated: [Entry] = []
        /// For a controller without sections: the same changes as removals and insertions of IDs.
        var difference: CollectionDifference<NSManagedObjectID>?

        var isEmpty: Bool { deleted.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty }
    }

    let input: Input
    /// The positions of the candidates that were in the results.
    private(set) var oldIndex: [ObjectIdentifier: Int] = [:]
    /// The positions of the candidates that are in the results now.
    private var newIndex: [ObjectIdentifier: Int] = [:]

    init(input: Input, objects: [NSManagedObject]) {
        self.input = input
        let candidates = input.candidates
        if candidates.count <= 4 {
            // A few objects (an edit, an insert): comparing references beats hashing each result.
            objects.withUnsafeBufferPointer { results in
                for candidate in candidates {
                    if let index = results.firstIndex(where: { $0 === candidate }) { oldIndex[ObjectIdentifier(candidate)] = index }
                }
            }
        } else {
            let wanted = Set(candidates.map(ObjectIdentifier.init))
            for (index, object) in objects.enumerated() where wanted.contains(ObjectIdentifier(object)) {
                oldIndex[ObjectIdentifier(object)] = index
            }
        }
    }

    /// Takes the candidates out of `objects` and puts `incoming` (the candidates in the results
    /// now) back at their sorted places, keeping `names` (each object's section name) alongside.
    ///
    /// - Parameters:
    ///   - incoming: The candidates that match the request now.
    ///   - objects: The results, sorted; changed in place.
    ///   - names: The section name of each result when `sectioned`; changed alongside `objects`.
    ///   - sectioned: Whether the controller has sections.
    ///   - sectionName: The section name of an object.
    ///   - before: Whether the first object (with its section name) sorts before the second.
    mutating func place(
        _ incoming: [NSManagedObject], in objects: inout [NSManagedObject], names: inout [String], sectioned: Bool,
        sectionName: (NSManagedObject) -> String,
        before: (NSManagedObject, String, NSManagedObject, String) -> Bool
    ) {
        let removed = oldIndex.values.sorted()
        if removed.count <= 16 {
            for index in removed.reversed() {
                objects.remove(at: index)
                if sectioned { names.remove(at: index) }
            }
        } else {
            // Compacting by swaps moves the references without retaining them.
            var write = 0
            var next = 0
            for read in objects.indices {
                if next < removed.count, removed[next] == read {
                    next += 1
                    continue
                }
                objects.swapAt(write, read)
                if sectioned { names.swapAt(write, read) }
                write += 1
            }
            objects.removeLast(objects.count - write)
            if sectioned { names.removeLast(names.count - write) }
        }

        let arriving = incoming.map { ($0, sectioned ? sectionName($0) : "") }.sorted { before($0.0, $0.1, $1.0, $1.1) }
        // Each one's place among the objects that stayed: after every object it does not sort before.
        let places = arriving.map { object, name -> Int in
            var low = 0
            var high = objects.count
            while low < high {
                let middle = (low + high) / 2
                if before(object, name, objects[middle], sectioned ? names[middle] : "") { high = middle } else { low = middle + 1 }
            }
            return low
        }
        for (offset, place) in places.enumerated() {
            newIndex[ObjectIdentifier(arriving[offset].0)] = place + offset
        }
        if arriving.count <= 16 {
            for offset in arriving.indices.reversed() {
                objects.insert(arriving[offset].0, at: places[offset])
                if sectioned { names.insert(arriving[offset].1, at: places[offset]) }
            }
        } else {
            var merged: [NSManagedObject] = []
            var mergedNames: [String] = []
            merged.reserveCapacity(objects.count + arriving.count)
            var next = 0
            for index in 0...objects.count {
                while next < arriving.count, places[next] == index {
                    merged.append(arriving[next].0)
                    if sectioned { mergedNames.append(arriving[next].1) }
                    next += 1
                }
                guard index < objects.count else { break }
                merged.append(objects[index])
                if sectioned { mergedNames.append(names[index]) }
            }
            objects = merged
            if sectioned { names = mergedNames }
        }
    }

    /// What the delegate is told: objects out of the results are deletes, new ones inserts; an
    /// object in both moved when its place among the objects that did not change is another (or
    /// its section is), and is an update otherwise, when it changed.
    ///
    /// - Parameters:
    ///   - oldNames: The section names of the results before, when `sectioned`.
    ///   - newNames: The section names of the results after, when `sectioned`.
    ///   - sectioned: Whether the controller has sections.
    /// - Returns: The changes by kind, each list in the order of the positions it reports.
    func report(oldNames: [String], newNames: [String], sectioned: Bool) -> Report {
        var report = Report()
        let oldPlaces = oldIndex.values.sorted()
        let newPlaces = newIndex.values.sorted()
        // How many unchanged objects precede a position: the position less the changed ones before it.
        func unchangedBefore(_ index: Int, in places: [Int]) -> Int {
            var low = 0
            var high = places.count
            while low < high {
                let middle = (low + high) / 2
                if places[middle] < index { low = middle + 1 } else { high = middle }
            }
            return index - low
        }
        var staying: [Entry] = []
        for object in input.candidates {
            let id = ObjectIdentifier(object)
            let changed = input.changedInPlace.contains(id)
            switch (oldIndex[id], newIndex[id]) {
            case let (from?, nil):
                report.deleted.append(Entry(object: object, from: from, to: -1, changedInPlace: changed))
            case let (nil, to?):
                report.inserted.append(Entry(object: object, from: -1, to: to, changedInPlace: changed))
            case let (from?, to?):
                let entry = Entry(object: object, from: from, to: to, changedInPlace: changed)
                let otherSection = sectioned && oldNames[from] != newNames[to]
                if otherSection || unchangedBefore(from, in: oldPlaces) != unchangedBefore(to, in: newPlaces) {
                    report.moved.append(entry)
                } else {
                    staying.append(entry)
                }
            case (nil, nil):
                break
            }
        }
        // Objects between the same unchanged neighbours may still have swapped among themselves:
        // those off the longest run kept in order moved.
        staying.sort { $0.from < $1.from }
        let inOrder = Self.longestIncreasingRun(staying.map(\.to))
        for (offset, entry) in staying.enumerated() {
            if !inOrder.contains(offset) {
                report.moved.append(entry)
            } else if entry.changedInPlace {
                report.updated.append(entry)
            }
        }
        report.deleted.sort { $0.from < $1.from }
        report.inserted.sort { $0.to < $1.to }
        report.moved.sort { $0.to < $1.to }
        if !sectioned { report.difference = difference(report) }
        return report
    }

    /// The removals and insertions of object IDs equal to the report (a move is both, associated).
    private func difference(_ report: Report) -> CollectionDifference<NSManagedObjectID>? {
        var changes: [CollectionDifference<NSManagedObjectID>.Change] = []
        for entry in report.deleted {
            changes.append(.remove(offset: entry.from, element: entry.object.objectID, associatedWith: nil))
        }
        for entry in report.inserted {
            changes.append(.insert(offset: entry.to, element: entry.object.objectID, associatedWith: nil))
        }
        for entry in report.moved {
            let id = entry.object.objectID
            changes.append(.remove(offset: entry.from, element: id, associatedWith: entry.to))
            changes.append(.insert(offset: entry.to, element: id, associatedWith: entry.from))
        }
        return CollectionDifference(changes)
    }

    /// The offsets of a longest strictly increasing subsequence of `values` (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        guard !values.isEmpty else { return [] }
        var tails: [Int] = []  // offsets of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (offset, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[offset] = tails[low - 1] }
            if low == tails.count { tails.append(offset) } else { tails[low] = offset }
        }
        var run = Set<Int>()
        var offset = tails.last!
        while offset >= 0 {
            run.insert(offset)
            offset = previous[offset]
        }
        return run
    }
}
