import Foundation
import Testing
@testable import OpenCoreData

/// The tutorials' asynchronous fetch ("iOS 8: Core Data and Asynchronous Fetching"): the view
/// controller's `viewDidLoad` fetches every TSPItem sorted by `createdAt`, inside `performBlock:`
/// with a current `NSProgress` of one unit, shows "Fetched N Records" as the progress advances,
/// and fills its table from `finalResult` on the main queue. Translated line for line from its
/// Objective-C into Swift; UIKit's table view and the SVProgressHUD become the small recorders
/// below, and the KVO observer of `completedUnitCount` becomes `observeCompletedUnitCount(_:)`.
@Suite struct AsynchronousFetchTutorialTests {
    static let itemCount = 20_000

    @Test @MainActor func theTutorialsAsynchronousFetchOfTSPItemsSortedByCreatedAt() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(Self.itemCount)
        let managedObjectContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        managedObjectContext.persistentStoreCoordinator = stack.coordinator

        let viewController = TSPViewController(managedObjectContext: managedObjectContext)
        await withCheckedContinuation { continuation in
            viewController.hud.onDismiss = { continuation.resume() }
            viewController.viewDidLoad()
        }

        #expect(viewController.items.count == Self.itemCount)
        #expect(viewController.tableView.reloads == 1)
        let createdAt = viewController.items.map { $0.value(forKey: "createdAt") as! Date }
        #expect(zip(createdAt, createdAt.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(viewController.items.first?.value(forKey: "name") as? String == "Item \(Self.itemCount)")
        #expect(viewController.hud.shownWith == "Fetching Data")
        let counts = viewController.hud.statuses.map { Int($0.split(separator: " ")[1])! }
        #expect(viewController.hud.statuses.last == "Fetched \(Self.itemCount) Records")
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(counts.count > Self.itemCount / 1_000)
        // The fetch's progress was the child of the tutorial's one-unit progress, which it completed.
        #expect(viewController.progressForTest?.completedUnitCount == 1)
        #expect(viewController.progressForTest?.isFinished == true)
    }
}

/// The tutorial's view controller, with its table view and HUD as recorders.
@MainActor final class TSPViewController {
    let managedObjectContext: NSManagedObjectContext
    var items: [NSManagedObject] = []
    let tableView = TableViewRecorder()
    let hud = ProgressHUDRecorder()
    /// Not in the tutorial: its progress, kept for the test to look at.
    nonisolated(unsafe) var progressForTest: Progress?

    init(managedObjectContext: NSManagedObjectContext) {
        self.managedObjectContext = managedObjectContext
    }

    func viewDidLoad() {
        // Initialize Fetch Request
        let fetchRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "TSPItem")

        // Add Sort Descriptors
        fetchRequest.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]

        // Initialize Asynchronous Fetch Request
        // (Swift 6: the request crosses into perform's @Sendable block, as the tutorial's block
        // captured it; nothing else touches it meanwhile.)
        nonisolated(unsafe) let asynchronousFetchRequest = NSAsynchronousFetchRequest(fetchRequest: fetchRequest) { [weak self] result in
            DispatchQueue.main.async {
                // Process Asynchronous Fetch Result
                self?.processAsynchronousFetchResult(result)

                // Remove Observer
                // (Nothing to remove: the observer of `observeCompletedUnitCount` ends with the fetch.)

                // Hide Progress HUD
                self?.hud.dismiss()
            }
        }

        // Show Progress HUD
        hud.show(withStatus: "Fetching Data")

        // Execute Asynchronous Fetch Request
        managedObjectContext.perform { [weak self] in
            // Create Progress
            let progress = Progress(totalUnitCount: 1)
            self?.progressForTest = progress

            // Become Current
            progress.becomeCurrent(withPendingUnitCount: 1)

            // Execute Asynchronous Fetch Request
            do {
                let asynchronousFetchResult = try self?.managedObjectContext.execute(asynchronousFetchRequest) as? NSAsynchronousFetchResult<NSFetchRequestResult>

                // Add Observer
                asynchronousFetchResult?.observeCompletedUnitCount { completedUnitCount in
                    self?.observeValue(forCompletedUnitCount: completedUnitCount)
                }
            } catch {
                print("Unable to execute asynchronous fetch result.")
                print("\(error), \(error.localizedDescription)")
            }

            // Resign Current
            progress.resignCurrent()
        }
    }

    nonisolated func observeValue(forCompletedUnitCount completedUnitCount: Int64) {
        DispatchQueue.main.async { [weak self] in
            // Create Status
            let status = "Fetched \(completedUnitCount) Records"

            // Show Progress HUD
            self?.hud.setStatus(status)
        }
    }

    func processAsynchronousFetchResult(_ asynchronousFetchResult: NSAsynchronousFetchResult<NSFetchRequestResult>) {
        if let result = asynchronousFetchResult.finalResult {
            // Update Items
            items = result as! [NSManagedObject]

            // Reload Table View
            tableView.reloadData()
        }
    }
}

@MainActor final class TableViewRecorder {
    private(set) var reloads = 0
    func reloadData() { reloads += 1 }
}

@MainActor final class ProgressHUDRecorder {
    private(set) var shownWith: String?
    private(set) var statuses: [String] = []
    var onDismiss: (() -> Void)?
    func show(withStatus status: String) { shownWith = status }
    func setStatus(_ status: String) { statuses.append(status) }
    func dismiss() { onDismiss?() }
}
