import Foundation
import Testing
@testable import OpenCoreData

/// `perform` and `performAndWait` on a coordinator, as stack code that adds, destroys and
/// re-adds stores uses them.
@Suite struct CoordinatorPerformTests {
    @Test func performAndWaitRunsTheBlockReturnsItsValueAndLetsItNestAndUseTheCoordinator() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let url = directory.file("Todo.sqlite")
        let count = try coordinator.performAndWait {
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            // Nested: runs at once instead of waiting for the outer block.
            return coordinator.performAndWait { coordinator.persistentStores.count }
        }
        #expect(count == 1)
        // Destroying and adding again inside a block, as a stack's reset does.
        try coordinator.performAndWait {
            try coordinator.destroyPersistentStore(at: url, type: .sqlite)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
        }
        #expect(coordinator.persistentStores.count == 1)

        struct Refused: Error {}
        #expect(throws: Refused.self) { try coordinator.performAndWait { throw Refused() } }
    }

    @Test func performRunsBlocksInOrderOneAtATime() async throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let log = Locked<(order: [Int], running: Int, most: Int)>(([], 0, 0))
        // From a synchronous function: in an async one `perform { }` is the async form, as with
        // Core Data's own overloads.
        func enqueue(_ index: Int) {
            coordinator.perform {
                log.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                usleep(200)
                log.withLock { $0.running -= 1; $0.order.append(index) }
            }
        }
        for index in 0..<20 { enqueue(index) }
        // The async form waits its turn behind the blocks given before it.
        let seen = await coordinator.perform { log.withLock { $0.order } }
        #expect(seen == Array(0..<20))
        #expect(log.withLock { $0.most } == 1)

        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await coordinator.perform { throw Refused() } }
    }
}
