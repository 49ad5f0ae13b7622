import ArgumentParser
import OpenCoreData

/// `todo check-all`: the tutorials' "Check All": one batch update marks every item done in the
/// store, then the context refreshes the objects it holds so that they show the new value.
struct CheckAll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-all", abstract: "Mark every item as done with one batch update.")

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (count, time) = try await TodoStore.timedUpdate(options) { try CheckAll.checkAll(in: $0) }
        print("Checked all \(count) items in \(time).")
    }

    /// The tutorials' `checkAll`: the batch update writes straight to the store, so the objects
    /// the context holds still show the old value until they are refreshed. Returns how many items
    /// the update changed. Call on the context's queue.
    static func checkAll(in managedObjectContext: NSManagedObjectContext) throws -> Int {
        // Initialize Batch Update Request
        let batchUpdateRequest = NSBatchUpdateRequest(entityName: TodoStore.entityName)
        // Configure Batch Update Request
        batchUpdateRequest.resultType = .updatedObjectIDsResultType
        batchUpdateRequest.propertiesToUpdate = ["done": NSNumber(value: true)]
        // Execute Batch Request
        let batchUpdateResult = try managedObjectContext.execute(batchUpdateRequest) as! NSBatchUpdateResult
        // Extract Object IDs
        let objectIDs = batchUpdateResult.result as! [NSManagedObjectID]
        for objectID in objectIDs {
            // Turn Managed Objects into Faults
            let managedObject = managedObjectContext.object(with: objectID)
            managedObjectContext.refresh(managedObject, mergeChanges: false)
        }
        return objectIDs.count
    }
}
