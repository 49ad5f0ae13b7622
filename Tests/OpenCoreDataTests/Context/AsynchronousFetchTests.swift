import Foundation
import Testing
@testable import OpenCoreData

/// `NSAsynchronousFetchRequest` through `execute(_:)`: what it returns, what its completion block
/// receives and where, how its objects meet the context's, and who may run it.
@Suite struct AsynchronousFetchTests {
    @Test func executeReturnsTheResultAtOnceAndTheCompletionBlockGetsTheSameOneOnTheContextsQueue() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(3_000)
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetchRequest.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        let (request, probe) = probedRequest(fetchRequest, context: stack.context)
        let (result, finalWhileExecuting) = try stack.context.performAndWait {
            let result = try stack.context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
            // The completion block needs this queue, which this block still holds.
            return (result, result.finalResult)
        }
        #expect(finalWhileExecuting == nil)
        #expect(result.fetchRequest === request)
        #expect(result.managedObjectContext === stack.context)
        #expect(probe.wait())
        #expect(probe.result === result)
        #expect(probe.calls == 1)
        #expect(probe.ranOnContextQueue)
        #expect(result.operationError == nil)
        let items = try #require(result.finalResult)
        #expect(items.count == 3_000)
        let (names, registered) = stack.context.performAndWait {
            (items.prefix(2).map { $0.value(forKey: "name") as? String },
             items.allSatisfy { stack.context.registeredObject(for: $0.objectID) === $0 })
        }
        // Sorted by createdAt, which descends with the primary key.
        #expect(names == ["Item 3000", "Item 2999"])
        #expect(registered)
    }

    @Test func objectsAreUniquedWithTheContextsAndItsUnsavedChangesSurvive() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(10)
        let context = stack.context
        let (renamed, deleted, inserted) = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "name IN %@", ["Item 3", "Item 5"])
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let found = try context.fetch(request)
            found[0].setValue("Item 3, renamed", forKey: "name")
            context.delete(found[1])
            let inserted = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            inserted.setValue("Item new", forKey: "name")
            inserted.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "createdAt")
            return (found[0], found[1], inserted)
        }
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetchRequest.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        let (request, probe) = probedRequest(fetchRequest, context: context)
        let result = try execute(request, in: context)
        #expect(probe.wait())
        let items = try #require(result.finalResult)
        let (names, renamedName, stillChanged) = context.performAndWait {
            (items.map { $0.value(forKey: "name") as! String }, renamed.value(forKey: "name") as? String, renamed.hasChanges)
        }
        // The same instances, the unsaved rename kept, the pending delete left out and the pending
        // insert added, all in createdAt order, as fetch(_:) returns them.
        #expect(items.contains { $0 === renamed })
        #expect(!items.contains { $0 === deleted })
        #expect(items.first === inserted)
        #expect(renamedName == "Item 3, renamed")
        #expect(stillChanged)
        #expect(names.count == 10)
        let synchronous = try context.performAndWait { try context.fetch(fetchRequest).map { $0.value(forKey: "name") as! String } }
        #expect(names == synchronous)
    }

    /// The fetch's new objects enter the context once every row is in; objects the context
    /// fetched meanwhile, between two of its blocks, are the ones the result holds.
    @Test func objectsTheContextFetchesWhileRowsComeInAreTheOnesTheResultHolds() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(100_000)
        let context = stack.context
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetchRequest.returnsObjectsAsFaults = false
        let (request, probe) = probedRequest(fetchRequest, context: context)
        let result = try execute(request, in: context)
        final class Midway: @unchecked Sendable {
            // @unchecked Sendable: touched only on the context's queue, then after the completion.
            var objects: [NSManagedObject]?
        }
        let midway = Midway()
        result.observeCompletedUnitCount { count in
            // On the context's queue, between two blocks: rows it has read (Item 1, Item 2) and
            // one it has not reached yet.
            guard midway.objects == nil, count >= 20_000, count < 100_000 else { return }
            let early = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            early.predicate = NSPredicate(format: "name IN %@", ["Item 1", "Item 2", "Item 99999"])
            midway.objects = try? context.fetch(early)
        }
        #expect(probe.wait())
        let items = try #require(result.finalResult)
        let taken = try #require(midway.objects)
        #expect(taken.count == 3)
        let identities = Set(items.map(ObjectIdentifier.init))
        #expect(taken.allSatisfy { identities.contains(ObjectIdentifier($0)) })
        let (registered, allRegistered, faults) = context.performAndWait {
            (context.registry.count, items.allSatisfy { context.registeredObject(for: $0.objectID) === $0 }, items.filter(\.isFault).count)
        }
        #expect(items.count == 100_000)
        #expect(registered == 100_000)
        #expect(allRegistered)
        #expect(faults == 0)
    }

    @Test func limitsOffsetsPredicatesAndFilledObjectsWorkAsInFetch() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(500)
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetchRequest.predicate = NSPredicate(format: "done == YES")
        fetchRequest.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        fetchRequest.fetchOffset = 10
        fetchRequest.fetchLimit = 20
        fetchRequest.returnsObjectsAsFaults = false
        let (request, probe) = probedRequest(fetchRequest, context: stack.context)
        let result = try execute(request, in: stack.context)
        #expect(probe.wait())
        let items = try #require(result.finalResult)
        let (names, faults) = stack.context.performAndWait { (items.map { $0.value(forKey: "name") as! String }, items.filter(\.isFault).count) }
        let expected = try stack.context.performAndWait { try stack.context.fetch(fetchRequest).map { $0.value(forKey: "name") as! String } }
        #expect(names.count == 20)
        #expect(names == expected)
        #expect(faults == 0)
    }

    @Test func objectIDsDictionariesAndCountsComeBackTyped() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(100)
        let context = stack.context

        let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem")
        idRequest.resultType = .managedObjectIDResultType
        let (ids, idProbe) = probedRequest(idRequest, context: context)
        let idResult = try execute(ids, in: context)
        #expect(idProbe.wait())
        #expect(idResult.finalResult?.count == 100)
        #expect(idResult.finalResult?.allSatisfy { !$0.isTemporaryID && $0.entity.name == "TSPItem" } == true)
        // IDs are made from the rows; no object is registered for them, as with fetch(_:).
        #expect(context.performAndWait { context.registeredObjects.isEmpty })

        let dictionaryRequest = NSFetchRequest<NSDictionary>(entityName: "TSPItem")
        dictionaryRequest.resultType = .dictionaryResultType
        dictionaryRequest.propertiesToFetch = ["name"]
        dictionaryRequest.predicate = NSPredicate(format: "name == 'Item 42'")
        let (dictionaries, dictionaryProbe) = probedRequest(dictionaryRequest, context: context)
        let dictionaryResult = try execute(dictionaries, in: context)
        #expect(dictionaryProbe.wait())
        #expect(dictionaryResult.finalResult?.map { $0["name"] as? String } == ["Item 42"])

        let countRequest = NSFetchRequest<NSNumber>(entityName: "TSPItem")
        countRequest.resultType = .countResultType
        countRequest.predicate = NSPredicate(format: "done == NO")
        let (count, countProbe) = probedRequest(countRequest, context: context)
        let countResult = try execute(count, in: context)
        #expect(countProbe.wait())
        #expect(countResult.finalResult == [50])

        // The untyped spelling of ported code: NSFetchRequest<NSFetchRequestResult>.
        let untyped = NSFetchRequest<NSFetchRequestResult>(entityName: "TSPItem")
        untyped.fetchLimit = 7
        let (anyRequest, anyProbe) = probedRequest(untyped, context: context)
        let anyResult = try execute(anyRequest, in: context)
        #expect(anyProbe.wait())
        #expect(anyResult.finalResult?.count == 7)
        #expect(anyResult.finalResult?.allSatisfy { $0 is NSManagedObject } == true)
    }

    @Test func aConfinementContextRefusesAsynchronousFetchRequestsWithAnError() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: context)
        let error = #expect(throws: NSError.self) { try context.execute(request) }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
        // Core Data's wording: "NSConfinementConcurrencyType context … cannot support asynchronous
        // fetch request … with fetch request …".
        let message = error?.localizedDescription ?? ""
        #expect(message.hasPrefix("NSConfinementConcurrencyType context"))
        #expect(message.contains("cannot support asynchronous fetch request"))
        // Refused before any operation began: the block was never handed to a queue.
        #expect(probe.calls == 0)
    }

    @Test func aChildContextGetsCoreDatasErrorNotAnEmptyResult() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(10)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = stack.context
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"), context: child)
        let error = #expect(throws: NSError.self) { try child.performAndWait { try child.execute(request) } }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
        #expect(error?.localizedDescription.contains("child context") == true)
        // A completion would come on the child's queue: whatever was queued there has run once
        // this returns.
        child.performAndWait {}
        #expect(probe.calls == 0)
    }

    @Test func theInMemoryStoreFetchesAsynchronouslyToo() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory, type: .inMemory)
        try stack.context.performAndWait {
            for i in 0..<50 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                item.setValue("Item \(i)", forKey: "name")
                item.setValue(Date(timeIntervalSinceReferenceDate: Double(-i)), forKey: "createdAt")
            }
            try stack.context.save()
            stack.context.reset()
        }
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetchRequest.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        let (request, probe) = probedRequest(fetchRequest, context: stack.context)
        let result = try execute(request, in: stack.context)
        #expect(probe.wait())
        let names = stack.context.performAndWait { result.finalResult?.map { $0.value(forKey: "name") as! String } }
        #expect(names?.count == 50)
        #expect(names?.first == "Item 49")
        #expect(stack.context.performAndWait { result.progress?.completedUnitCount } == 50)
    }

    @Test func aStoreErrorArrivesAsTheOperationError() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(10)
        let fetchRequest = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        fetchRequest.predicate = NSPredicate(format: "colour == 'red'")
        let (request, probe) = probedRequest(fetchRequest, context: stack.context)
        let synchronous = #expect(throws: NSError.self) { try stack.context.performAndWait { try stack.context.fetch(fetchRequest) } }
        let result = try execute(request, in: stack.context)
        #expect(probe.wait())
        let error = result.operationError as NSError?
        #expect(result.finalResult == nil)
        #expect(error != nil)
        #expect(error?.code == synchronous?.code)
        #expect(error?.localizedDescription == synchronous?.localizedDescription)
    }

    @Test func anUnknownEntityIsRefusedAtOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let (request, probe) = probedRequest(NSFetchRequest<NSManagedObject>(entityName: "Nope"), context: stack.context)
        #expect(throws: NSError.self) { try execute(request, in: stack.context) }
        stack.context.performAndWait {}
        #expect(probe.calls == 0)
    }
}

extension AsynchronousFetchTests {
    @Test func nothingOutlivesAFinishedFetchButWhatTheCallerKeeps() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(1_000)
        weak var weakResult: NSAsynchronousFetchResult<NSManagedObject>?
        weak var weakRequest: NSAsynchronousFetchRequest<NSManagedObject>?
        weak var weakProgress: Progress?
        try {
            // A block that keeps the objects, not the result (a result kept by its own request's
            // block would keep itself alive, as in Core Data).
            let done = DispatchSemaphore(value: 0)
            let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) { _ in
                done.signal()
            }
            let result = try execute(request, in: stack.context)
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(result.finalResult?.count == 1_000)
            weakResult = result
            weakRequest = request
            weakProgress = result.progress
        }()
        // Let the last block of the fetch finish on the context's queue, and the reading
        // thread return from the block that handed the rows over (it may still be unwinding).
        stack.context.performAndWait {}
        let deadline = Date().addingTimeInterval(2)
        while weakResult != nil || weakRequest != nil || weakProgress != nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(weakResult == nil)
        #expect(weakRequest == nil)
        #expect(weakProgress == nil)
    }
}
