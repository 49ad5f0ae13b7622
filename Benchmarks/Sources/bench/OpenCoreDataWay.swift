import BenchmarkSupport
import Foundation
import OpenCoreData

/// OpenCoreData as an app uses it: a container on a SQLite store, a background context, and
/// everything done inside `performAndWait` through KVC, as the tutorials do.
final class OpenCoreDataWay: BenchmarkWay {
    static let name = "OpenCoreData"

    private let container: NSPersistentContainer
    private let context: NSManagedObjectContext
    private let data: DataSet
    private var objects: [NSManagedObject] = []
    private var objectIDs: [NSManagedObjectID] = []
    /// Kept apart from `objects`: putting them there would copy the array into an
    /// `[NSManagedObject]` inside the timed part, which no app does.
    private var items: [TSPItem] = []

    init(databaseURL: URL, fixture: Fixture) throws {
        container = NSPersistentContainer(name: "Bench", managedObjectModel: fixture.model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: databaseURL)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        context = container.newBackgroundContext()
        data = fixture.data
    }

    /// Drops the results and resets the context, as a request handler's context goes away.
    func release() throws {
        objects = []
        objectIDs = []
        items = []
        context.performAndWait { context.reset() }
    }

    func close() throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    func run(_ benchCase: BenchCase) throws -> Int {
        if benchCase == .fetchAsync { return try fetchAsynchronously() }
        let context = self.context
        return try context.performAndWait {
            switch benchCase {
            case .insert:
                data.insertItems(into: context)
                try context.save()
                return data.count
            case .typedInsert:
                // As an app with Xcode's generated class writes it.
                for i in 0..<data.count {
                    let item = TSPItem(context: context)
                    item.name = data.names[i]
                    item.createdAt = data.dates[i]
                    item.done = data.done[i]
                }
                try context.save()
                return data.count
            case .typedRead:
                let request: NSFetchRequest<TSPItem> = TSPItem.fetchRequest()
                request.returnsObjectsAsFaults = false
                items = try context.fetch(request)
                var touched = 0
                for item in items {
                    touched &+= item.name!.utf8.count &+ Int(item.createdAt!.timeIntervalSinceReferenceDate) &+ (item.done ? 1 : 0)
                }
                precondition(touched != 0)
                return items.count
            case .fetchAll, .fetchSorted:
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.returnsObjectsAsFaults = false
                if benchCase == .fetchSorted {
                    request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
                }
                objects = try context.fetch(request)
                return objects.count
            case .fetchTen:
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.returnsObjectsAsFaults = false
                request.fetchLimit = 10
                objects = try context.fetch(request)
                return objects.count
            case .fetchAsync:
                preconditionFailure("run by fetchAsynchronously()")
            case .fetchFaults:
                objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
                return objects.count
            case .fetchIDs:
                let request = NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem")
                request.resultType = .managedObjectIDResultType
                objectIDs = try context.fetch(request)
                return objectIDs.count
            case .iterateBatched:
                // The Linux form of a `fetchBatchSize` fetch: objects made a batch at a time and
                // let go of behind the reader. The heap is sampled once every 64 batches (its
                // level is flat after the first), so that the table shows the peak.
                let request: NSFetchRequest<TSPItem> = TSPItem.fetchRequest()
                request.fetchBatchSize = 1000
                let result = try context.batchedFetch(request)
                var count = 0
                var bytes = 0
                for item in result {
                    bytes &+= item.name!.utf8.count
                    count += 1
                    if count & 0xFFFF == 0 { Heap.samplePeak() }
                }
                Heap.samplePeak()
                precondition(bytes > 0)
                return count
            case .predicateDate:
                objects = try context.fetch(Self.request(Self.datePredicate))
                return objects.count
            case .predicateName, .predicateLike, .predicateLikeCaseless, .predicateContains, .predicateMatches:
                objects = try context.fetch(Self.request(NSPredicate(format: benchCase.namePredicate!)))
                return objects.count
            case .countPredicate:
                return try context.count(for: Self.request(Self.datePredicate))
            case .countAll, .countAfterWrites:
                return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            case .update10k:
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.fetchLimit = BenchCase.changeCount
                objects = try context.fetch(request)
                for object in objects {
                    object.setValue(!(object.value(forKey: "done") as! Bool), forKey: "done")
                }
                try context.save()
                return objects.count
            case .delete10k:
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.fetchLimit = BenchCase.changeCount
                objects = try context.fetch(request)
                for object in objects { context.delete(object) }
                try context.save()
                return objects.count
            case .batchUpdate, .batchUpdateIDs:
                let request = NSBatchUpdateRequest.checkAllItems()
                if benchCase == .batchUpdate {
                    request.resultType = .updatedObjectsCountResultType
                    return (try context.execute(request) as! NSBatchUpdateResult).result as! Int
                }
                request.resultType = .updatedObjectIDsResultType
                objectIDs = (try context.execute(request) as! NSBatchUpdateResult).result as! [NSManagedObjectID]
                return objectIDs.count
            case .batchInsert:
                // Apple's way for large imports: one dictionary at a time, none kept.
                var index = 0
                let data = self.data
                let request = NSBatchInsertRequest(entityName: "TSPItem", dictionaryHandler: { dictionary in
                    guard index < data.count else { return true }
                    dictionary["name"] = data.names[index]
                    dictionary["createdAt"] = data.dates[index]
                    dictionary["done"] = data.done[index]
                    index += 1
                    return false
                })
                request.resultType = .count
                return (try context.execute(request) as! NSBatchInsertResult).result as! Int
            case .batchDelete:
                return (try context.execute(NSBatchDeleteRequest.clearDoneItems()) as! NSBatchDeleteResult).result as! Int
            }
        }
    }

    /// The fetch-all request as an `NSAsynchronousFetchRequest`: executed on the context's queue,
    /// timed until its completion block has run there.
    private func fetchAsynchronously() throws -> Int {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.returnsObjectsAsFaults = false
        let finished = DispatchSemaphore(value: 0)
        let outcome = AsynchronousOutcome()
        let asynchronousRequest = NSAsynchronousFetchRequest(fetchRequest: request) { result in
            outcome.objects = result.finalResult
            outcome.error = result.operationError
            finished.signal()
        }
        let context = self.context
        try context.performAndWait { _ = try context.execute(asynchronousRequest) }
        finished.wait()
        if let error = outcome.error { throw error }
        objects = outcome.objects ?? []
        return objects.count
    }

    private static var datePredicate: NSPredicate {
        NSPredicate(format: "done == NO AND createdAt > %@", DataSet.predicateDate)
    }

    private static func request(_ predicate: NSPredicate) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.predicate = predicate
        return request
    }
}

/// What the completion block of the asynchronous case hands back to the waiting thread.
private final class AsynchronousOutcome: @unchecked Sendable {
    // @unchecked Sendable: written by the completion block before the semaphore is signalled,
    // read only after waiting for it.
    var objects: [NSManagedObject]?
    var error: (any Error)?
}
