import Foundation
import Testing
@testable import OpenCoreData

/// The to-do list of the tutorials ("Core Data and Swift: Batch Updates"), reduced to what its
/// "Check All" button needs: a context, and the items its table shows.
private final class TodoListController {
    let managedObjectContext: NSManagedObjectContext
    /// What the tutorial's fetched results controller holds: the items, sorted by creation date.
    private(set) var fetchedObjects: [NSManagedObject] = []
    private(set) var errors: [NSError] = []

    init(managedObjectContext: NSManagedObjectContext) {
        self.managedObjectContext = managedObjectContext
    }

    /// The fetched results controller's `performFetch()`.
    func performFetch() throws {
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetchRequest.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        fetchedObjects = try managedObjectContext.fetch(fetchRequest)
    }

    /// The tutorial's `checkAll(_:)` action, line for line in today's Swift.
    func checkAll() {
        // Create Entity Description
        let entityDescription = NSEntityDescription.entity(forEntityName: "TSPItem", in: managedObjectContext)

        // Initialize Batch Update Request
        let batchUpdateRequest = NSBatchUpdateRequest(entity: entityDescription!)

        // Configure Batch Update Request
        batchUpdateRequest.resultType = .updatedObjectIDsResultType
        batchUpdateRequest.propertiesToUpdate = ["done": true]

        do {
            // Execute Batch Request
            let batchUpdateResult = try managedObjectContext.execute(batchUpdateRequest) as! NSBatchUpdateResult

            // Extract Object IDs
            let objectIDs = batchUpdateResult.result as! [NSManagedObjectID]

            for objectID in objectIDs {
                // Turn Managed Objects into Faults
                let managedObject = managedObjectContext.object(with: objectID)
                managedObjectContext.refresh(managedObject, mergeChanges: false)
            }

            // Perform Fetch
            try self.performFetch()

        } catch {
            let updateError = error as NSError
            errors.append(updateError)
            print("\(updateError), \(updateError.userInfo)")
        }
    }
}

@Suite struct CheckAllTutorialTests {
    @Test func checkAllThenTheRefreshLoopShowsEveryItemDone() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(1000, in: stack.context)
        let viewContext = BatchFixtures.context(stack.coordinator, "view")
        let controller = TodoListController(managedObjectContext: viewContext)

        let shownBefore = try viewContext.performAndWait {
            try controller.performFetch()
            // The table shows every row: every object is filled with the values of the time.
            return controller.fetchedObjects.map { $0.value(forKey: "done") as! Bool }
        }
        #expect(shownBefore.filter { $0 }.count == 500)
        let cells = controller.fetchedObjects

        viewContext.performAndWait { controller.checkAll() }

        let (shownAfter, cellsAfter, changed) = viewContext.performAndWait {
            (controller.fetchedObjects.map { $0.value(forKey: "done") as! Bool },
             cells.map { $0.value(forKey: "done") as! Bool }, viewContext.hasChanges)
        }
        #expect(controller.errors.isEmpty)
        #expect(shownAfter == Array(repeating: true, count: 1000))
        // The objects the table held are the same objects, now showing the store's values.
        #expect(cellsAfter == Array(repeating: true, count: 1000))
        #expect(zip(cells, controller.fetchedObjects).allSatisfy { $0 === $1 })
        #expect(changed == false)
        #expect(try StoreSnapshot.integers("SELECT COUNT(*) FROM ZTSPITEM WHERE ZDONE = 1 AND Z_OPT = 2", in: stack.url) == [1000])
        // Refreshed objects carry the new version: checking one off again saves without a conflict.
        try viewContext.performAndWait {
            cells[0].setValue(false, forKey: "done")
            try viewContext.save()
        }
    }

    @Test func withoutTheRefreshLoopTheContextShowsTheOldValues() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        _ = try BatchFixtures.saveItems(10, in: stack.context)
        let viewContext = BatchFixtures.context(stack.coordinator, "view")
        let controller = TodoListController(managedObjectContext: viewContext)
        let stale = try viewContext.performAndWait {
            try controller.performFetch()
            _ = controller.fetchedObjects.map { $0.value(forKey: "done") }
            let request = NSBatchUpdateRequest(entityName: "TSPItem")
            request.propertiesToUpdate = ["done": true]
            _ = try viewContext.execute(request)
            try controller.performFetch()
            return controller.fetchedObjects.map { $0.value(forKey: "done") as! Bool }
        }
        // Why the tutorial turns the objects into faults: a fetch returns the registered objects
        // with the values they had.
        #expect(stale.filter { $0 }.count == 5)
    }
}
