import BenchmarkSupport
import Foundation
import OpenCoreData

/// The fetched results controller against the fetch it runs, and the cost of one change.
struct FetchedResultsBench {
    let url: URL
    let count: Int
    let data: DataSet

    init(data: DataSet, count: Int, scratch: URL) throws {
        self.data = data
        self.count = count
        let folder = scratch.appendingPathComponent("frc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent("Store.sqlite")
        let container = try HistoryBench.container(at: url, history: false)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            HistoryBench.insertItems(count, of: data, into: context)
            try context.save()
        }
        try HistoryBench.close(container)
    }

    private func request() -> NSFetchRequest<TSPItem> {
        let request = NSFetchRequest<TSPItem>(entityName: "TSPItem")
        request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        request.returnsObjectsAsFaults = false
        return request
    }

    /// Medians of `performFetch()` (with a delegate, so that it follows changes) and of the plain
    /// fetch, alternating, each from an empty context.
    func performFetch(runs: Int) throws -> (controller: Double, fetch: Double) {
        let container = try HistoryBench.container(at: url, history: false)
        defer { try? HistoryBench.close(container) }
        let context = container.newBackgroundContext()
        var controllerTimes: [Double] = []
        var fetchTimes: [Double] = []
        let delegate = Counter()
        try context.performAndWait {
            for _ in 0..<runs {
                let controller = NSFetchedResultsController(
                    fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
                controller.delegate = delegate
                Heap.releaseFreeMemory()
                controllerTimes.append(try HistoryBench.seconds { try controller.performFetch() })
                guard controller.fetchedObjects?.count == count else { throw BenchError("performFetch returned too few objects") }
                context.reset()
                Heap.releaseFreeMemory()
                var fetched: [TSPItem] = []
                fetchTimes.append(try HistoryBench.seconds { fetched = try context.fetch(request()) })
                guard fetched.count == count else { throw BenchError("the fetch returned too few objects") }
                fetched = []
                context.reset()
            }
        }
        return (Report.median(controllerTimes), Report.median(fetchTimes))
    }

    /// The time from `processPendingChanges()` to the delegate's did-change call, for one object
    /// moved to the end of the results, 200 times.
    func oneChange() throws -> [Double] {
        let container = try HistoryBench.container(at: url, history: false)
        defer { try? HistoryBench.close(container) }
        let context = container.newBackgroundContext()
        let delegate = Counter()
        return try context.performAndWait {
            let controller = NSFetchedResultsController(
                fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            controller.delegate = delegate
            try controller.performFetch()
            var latest = data.dates.max()!
            var times: [Double] = []
            for step in 0..<200 {
                let item = controller.fetchedObjects![(step * 7919) % count]
                latest = latest.addingTimeInterval(1)
                item.createdAt = latest
                let moves = delegate.moves
                times.append(HistoryBench.seconds { context.processPendingChanges() })
                guard delegate.moves == moves + 1 else { throw BenchError("the move was not reported") }
            }
            return times
        }
    }

    private final class Counter: NSFetchedResultsControllerDelegate {
        var moves = 0
        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
            for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
        ) {
            if type == .move { moves += 1 }
        }
    }
}
