import ArgumentParser
import OpenCoreData

/// `todo clear-done`: deletes every done item with one batch delete, straight in the store.
struct ClearDone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-done", abstract: "Delete every done item with one batch delete.")

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (count, time) = try await TodoStore.timedUpdate(options) { try ClearDone.clearDone(in: $0) }
        print("Deleted \(count) done \(count == 1 ? "item" : "items") in \(time).")
    }

    /// Deletes the done items in the store and merges the deletions into `context`, so that the
    /// objects it holds for them are gone too. Returns how many were deleted. Call on the
    /// context's queue.
    static func clearDone(in context: NSManagedObjectContext) throws -> Int {
        let fetchRequest: NSFetchRequest<NSFetchRequestResult> = TSPItem.fetchRequest()
        fetchRequest.predicate = NSPredicate(format: "done == YES")
        let deleteRequest = NSBatchDeleteRequest(fetchRequest: fetchRequest)
        deleteRequest.resultType = .resultTypeObjectIDs
        let result = try context.execute(deleteRequest) as! NSBatchDeleteResult
        let objectIDs = result.result as? [NSManagedObjectID] ?? []
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: objectIDs], into: [context])
        return objectIDs.count
    }
}
