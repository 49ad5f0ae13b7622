import Foundation
import Testing
@testable import OpenCoreData

/// What a cancelled asynchronous fetch leaves behind, whenever the cancellation comes. (How fast it
/// stops a million-row read is in `AsynchronousFetchTimingTests`.)
@Suite struct AsynchronousFetchCancellationTests {
    @Test func cancellingBeforeAnyRowIsReadEndsWithNSUserCancelledError() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(1_000)
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: stack.context)
        let result: NSAsynchronousFetchResult<NSManagedObject> = try stack.context.performAndWait {
            let result = try stack.context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
            result.cancel()
            return result
        }
        #expect(probe.wait())
        #expect(probe.calls == 1)
        #expect(probe.ranOnContextQueue)
        #expect(result.finalResult == nil)
        let error = result.operationError as NSError?
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSUserCancelledError)
        #expect(stack.context.performAndWait { stack.context.registeredObjects.isEmpty })
    }

    @Test func cancellingWhileObjectsAreRegisteredTakesThemBackButKeepsWhatOthersHold() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(200_000)
        let context = stack.context
        // An object the context already holds, with an unsaved change, that the fetch meets again.
        let edited: NSManagedObject = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "name == 'Item 150000'")
            let edited = try context.fetch(request)[0]
            edited.setValue(true, forKey: "done")
            return edited
        }
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: context)
        let result = try execute(request, in: context)
        // Wait for the fetch's objects to be entering the registry (after the read), then take up
        // one of them, as a fetch run between two blocks would.
        var taken: NSManagedObject?
        let deadline = ContinuousClock.now + .seconds(60)
        while taken == nil, ContinuousClock.now < deadline {
            taken = context.performAndWait {
                context.registry.count > 1 ? context.registeredObject(for: stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://\(stack.store.identifier!)/TSPItem/p1")!)!) : nil
            }
            if taken == nil { Thread.sleep(forTimeInterval: 0.001) }
        }
        let registeredWhenCancelled = context.performAndWait { context.registry.count }
        result.cancel()
        #expect(probe.wait())
        #expect((result.operationError as NSError?)?.code == NSUserCancelledError)
        #expect(result.finalResult == nil)
        let (left, editedStays, takenStays, editedDone) = context.performAndWait {
            (context.registry.count, context.registeredObject(for: edited.objectID) === edited,
             taken.map { context.registeredObject(for: $0.objectID) === $0 } ?? false, edited.value(forKey: "done") as? Bool)
        }
        #expect(taken != nil)
        #expect(registeredWhenCancelled > 2)
        #expect(registeredWhenCancelled < 200_000)
        // Only the object the context held before, and the one taken up meanwhile, remain.
        #expect(left == 2)
        #expect(editedStays)
        #expect(editedDone == true)
        #expect(takenStays)
        #expect(taken?.managedObjectContext === context)
    }

    @Test func cancellingAfterTheCompletionChangesNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(100)
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: stack.context)
        let result = try execute(request, in: stack.context)
        #expect(probe.wait())
        result.cancel()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(probe.calls == 1)
        #expect(result.finalResult?.count == 100)
        #expect(result.operationError == nil)
        #expect(stack.context.performAndWait { stack.context.registeredObjects.count } == 100)
    }

    @Test func anAlreadyCancelledParentProgressCancelsTheFetch() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(100)
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: stack.context)
        let result: NSAsynchronousFetchResult<NSManagedObject> = try stack.context.performAndWait {
            let parent = Progress(totalUnitCount: 1)
            parent.cancel()
            parent.becomeCurrent(withPendingUnitCount: 1)
            defer { parent.resignCurrent() }
            return try stack.context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
        }
        #expect(probe.wait())
        #expect((result.operationError as NSError?)?.code == NSUserCancelledError)
        #expect(stack.context.performAndWait { stack.context.registeredObjects.isEmpty })
    }
}
