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
        // As soon as the fetch's objects enter the registry (after the read), take up one of them,
        // as a fetch run between two blocks would, and cancel. Checked by a block on the context's
        // queue that queues itself again: it runs between two of the fetch's registering blocks
        // however loaded the machine is, where a check from another thread could come too late
        // under a full parallel test run.
        let canceller = CancelWhenRegistering(context: context, besides: edited) { result.cancel() }
        canceller.check()
        #expect(canceller.wait(seconds: 60))
        let (taken, registeredWhenCancelled) = (canceller.taken, canceller.registeredWhenCancelled)
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
        // Whatever the cancellation queued on the context's queue runs before this block.
        stack.context.performAndWait {}
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

/// Takes up one of the fetch's objects and cancels, from a block on `context`'s queue, as soon as
/// the fetch has registered some (more objects than `besides`, the one the context held): the
/// queue runs blocks in order, so the check comes right after the fetch's first registering block.
private final class CancelWhenRegistering: @unchecked Sendable {
    // @unchecked Sendable: `taken` and `registeredWhenCancelled` are written on the context's
    // queue before `done` is signalled and read after waiting for it.
    private let context: NSManagedObjectContext
    private let besides: ObjectIdentifier
    private let cancel: @Sendable () -> Void
    private let done = DispatchSemaphore(value: 0)
    private(set) var taken: NSManagedObject?
    private(set) var registeredWhenCancelled = 0

    init(context: NSManagedObjectContext, besides: NSManagedObject, cancel: @escaping @Sendable () -> Void) {
        self.context = context
        self.besides = ObjectIdentifier(besides)
        self.cancel = cancel
    }

    func check() {
        context.perform { [self] in
            guard context.registry.count > 1, let object = context.registry.values.first(where: { ObjectIdentifier($0) != besides })
            else { return check() }
            taken = object
            registeredWhenCancelled = context.registry.count
            cancel()
            done.signal()
        }
    }

    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }
}
