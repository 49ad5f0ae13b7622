import Foundation
import Testing
@testable import OpenCoreData

/// A large save releases its collections on another thread; `reset()` still frees every object
/// by the time it returns, and the objects stay whole meanwhile.
@Suite struct SecondThreadTests {
    private static let count = SecondThread.minimumCount + 100

    /// The save's collections wait on the release queue behind a gate opened only after `reset()`
    /// has begun: `reset()` must wait for them rather than return with the objects still alive.
    @Test(.enabled(if: SecondThread.helps))
    func resetAfterALargeSaveFreesEveryObject() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        let gate = DispatchSemaphore(value: 0)
        SecondThread.release(Gate(gate), count: SecondThread.minimumCount)
        let released: [WeakObject] = try context.performAndWait {
            let items = (0..<Self.count).map { index in
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("Item \(index)", forKey: "name")
                return item
            }
            try context.save()
            #expect(items.allSatisfy { !$0.hasChanges && !$0.objectID.isTemporaryID })
            #expect(items[Self.count - 1].value(forKey: "name") as? String == "Item \(Self.count - 1)")
            return items.map(WeakObject.init)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { gate.signal() }
        let alive = context.performAndWait {
            context.reset()
            return released.filter { $0.object != nil }.count
        }
        #expect(alive == 0)
    }

    @Test func aLargeSaveCanBeFollowedByAnotherAtOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = stack.context
        try context.performAndWait {
            for round in 0..<3 {
                for index in 0..<Self.count {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                    item.setValue("Round \(round) item \(index)", forKey: "name")
                }
                try context.save()
            }
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) == 3 * Self.count)
        }
    }
}

private final class WeakObject {
    weak var object: NSManagedObject?
    init(_ object: NSManagedObject) { self.object = object }
}

/// Holds the release queue until `semaphore` is signalled.
private final class Gate {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
    deinit { semaphore.wait() }
}
