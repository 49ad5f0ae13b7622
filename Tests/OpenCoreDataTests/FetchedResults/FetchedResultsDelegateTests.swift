import Foundation
import Testing

@testable import OpenCoreData

/// Which delegate methods a fetched results controller calls, and the changes it follows from
/// beyond its context: merges, child saves, batch requests.
@Suite struct FetchedResultsDelegateTests {
    /// Takes snapshots, and would write down per-change calls if it were given any.
    final class SnapshotTaker: NSFetchedResultsControllerDelegate {
        var snapshots: [NSDiffableDataSourceSnapshotReference] = []
        var perChangeCalls = 0
        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
            snapshots.append(snapshot)
        }
        func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { perChangeCalls += 1 }
        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
        ) { perChangeCalls += 1 }
    }

    /// Takes differences.
    final class DifferenceTaker: NSFetchedResultsControllerDelegate {
        var differences: [CollectionDifference<NSManagedObjectID>] = []
        var perChangeCalls = 0
        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
        ) { differences.append(diff) }
        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { perChangeCalls += 1 }
    }

    @Test func aSnapshotDelegateGetsTheFirstResultsAndEveryChangeAndNothingElse() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            let controller = Residents.controller(in: stack.context)
            let taker = SnapshotTaker()
            controller.delegate = taker
            try controller.performFetch()
            #expect(taker.snapshots.count == 1)
            let first = try #require(taker.snapshots.first)
            #expect(first.sectionIdentifiers as? [String] == ["Lyon", "Paris", "Rome"])
            #expect(first.numberOfItems == 6 && first.numberOfSections == 3)
            #expect(first.numberOfItems(inSection: "Paris") == 3)

            let dora = controller.fetchedObjects![3]
            dora.setValue(50, forKey: "age")
            Residents.insert("Ida", city: "Oslo", into: stack.context)
            stack.context.processPendingChanges()
            #expect(taker.snapshots.count == 2 && taker.perChangeCalls == 0)
            let second = taker.snapshots[1]
            #expect(second.sectionIdentifiers as? [String] == ["Lyon", "Oslo", "Paris", "Rome"])
            #expect(second.itemIdentifiers as? [NSManagedObjectID] == controller.fetchedObjects!.map(\.objectID))
            #expect(second.reloadedItemIdentifiers as? [NSManagedObjectID] == [dora.objectID])
            #expect(second.sectionIdentifierForSection(containingItemIdentifier: dora.objectID) as? String == "Paris")
            #expect(second.index(ofSectionIdentifier: "Oslo") == 1)
            #expect(second.itemIdentifiersInSection(withIdentifier: "Oslo").count == 1)
        }
    }

    @Test func aDifferenceDelegateOfAListWithoutSectionsGetsIDsToApply() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            let controller = Residents.controller(in: stack.context, sections: nil)
            let taker = DifferenceTaker()
            controller.delegate = taker
            try controller.performFetch()
            #expect(taker.differences.isEmpty)
            var shown = controller.fetchedObjects!.map(\.objectID)
            let objects = controller.fetchedObjects!
            try stack.context.obtainPermanentIDs(for: [])
            stack.context.delete(objects[1])
            objects[0].setValue("Zack", forKey: "city")
            objects[4].setValue("Abel", forKey: "city")
            let new = Residents.insert("Hal", city: "Nice", into: stack.context)
            try stack.context.obtainPermanentIDs(for: [new])
            stack.context.processPendingChanges()
            #expect(taker.differences.count == 1 && taker.perChangeCalls == 0)
            shown = try #require(shown.applying(taker.differences[0]))
            #expect(shown == controller.fetchedObjects!.map(\.objectID))

            // With sections, a difference delegate that implements nothing else is told nothing.
            let sectioned = Residents.controller(in: stack.context)
            let other = DifferenceTaker()
            sectioned.delegate = other
            try sectioned.performFetch()
            objects[2].setValue(77, forKey: "age")
            stack.context.processPendingChanges()
            #expect(other.differences.isEmpty && other.perChangeCalls == 1)
        }
    }

    @Test func theDelegateIsHandedAControllerSharingTheTypedOnesResults() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            let request = Residents.request()
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "city", cacheName: nil)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            controller.fetchedObjects![0].setValue(99, forKey: "age")
            stack.context.processPendingChanges()
            let handed = try #require(recorder.controllers.first)
            #expect(handed.fetchedObjects?.count == 6)
            #expect(handed.object(at: IndexPath(item: 1, section: 1)) === controller.object(at: IndexPath(item: 1, section: 1)))
            #expect(handed.fetchRequest === request)
            #expect(handed.managedObjectContext === stack.context)
            #expect(handed.sections?.map(\.name) == ["Lyon", "Paris", "Rome"])
            #expect(handed.delegate === recorder)
            // A controller of NSFetchRequestResult is handed itself.
            let erased = NSFetchedResultsController(
                fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Resident").sorted(by: "name"),
                managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
            let second = ChangeRecorder()
            erased.delegate = second
            try erased.performFetch()
            controller.fetchedObjects![0].setValue(98, forKey: "age")
            stack.context.processPendingChanges()
            #expect(second.controllers.first === erased)
        }
    }

    @Test func itFollowsMergesChildSavesAndPerformBlocks() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        let (controller, recorder) = try stack.context.performAndWait {
            try Residents.populate(stack.context)
            stack.context.automaticallyMergesChangesFromParent = true
            let controller = Residents.controller(in: stack.context)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            return (UncheckedTransfer(controller), UncheckedTransfer(recorder))
        }
        // Another context on the coordinator saves: merged automatically, on this context's queue.
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        try other.performAndWait {
            Residents.insert("Kim", city: "Lyon", into: other)
            let bob = try other.fetch(Residents.request(NSPredicate(format: "name == 'Bob'")))[0]
            other.delete(bob)
            try other.save()
        }
        await stack.context.perform {}
        stack.context.performAndWait {
            #expect(recorder.value.count(.insert) == 1 && recorder.value.count(.delete) == 1)
            #expect(Residents.layout(controller.value) == ["Lyon: Ann Kim", "Paris: Carl Dora Eve", "Rome: Fay"])
            _ = recorder.value.take()
        }

        // A child's save lands in the parent as its unsaved changes, told at once.
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = stack.context
        try child.performAndWait {
            let carl = try child.fetch(Residents.request(NSPredicate(format: "name == 'Carl'")))[0]
            carl.setValue("Rome", forKey: "city")
            try child.save()
        }
        stack.context.performAndWait {
            #expect(recorder.value.take().contains(.object("Carl", from: IndexPath(item: 0, section: 1), .move, to: IndexPath(item: 0, section: 2))))
        }

        // What a perform block changes is processed when the block ends.
        _ = await stack.context.perform {
            Residents.insert("Amy", city: "Paris", into: stack.context)
        }
        stack.context.performAndWait {
            #expect(recorder.value.take().contains(.object("Amy", from: nil, .insert, to: IndexPath(item: 0, section: 1))))
        }
    }

    @Test func batchRequestsAreToldOnlyOnceMerged() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            let (controller, recorder) = try {
                try Residents.populate(stack.context)
                let controller = Residents.controller(in: stack.context)
                let recorder = ChangeRecorder()
                controller.delegate = recorder
                try controller.performFetch()
                return (controller, recorder)
            }()
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Resident").where("city == 'Paris'"))
            delete.resultType = .resultTypeObjectIDs
            let result = try stack.context.execute(delete) as! NSBatchDeleteResult
            stack.context.processPendingChanges()
            #expect(recorder.events.isEmpty)
            #expect(controller.fetchedObjects?.count == 6)
            let ids = result.result as! [NSManagedObjectID]
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [stack.context])
            #expect(recorder.sectionCount(.delete) == 1 && recorder.count(.delete) == 3)
            #expect(Residents.layout(controller) == ["Lyon: Ann Bob", "Rome: Fay"])
        }
    }

    @Test func aTypedControllerReturnsTypedObjects() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("SampleModel_V1.sqlite")
        try Data(contentsOf: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite")).write(to: copy)
        let model = try FixtureModelVersion.sampleModel("SampleModel").load()
        for type in [Car.self, SportCar.self, ExpensiveSportCar.self, Person.self] as [NSManagedObject.Type] {
            model.entitiesByName[String(describing: type)]?.managedObjectClassName = String(reflecting: type)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: copy)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<Car>(entityName: "Car")
            request.sortDescriptors = [NSSortDescriptor(key: "maker", ascending: true), NSSortDescriptor(key: "numberPlate", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "maker", cacheName: nil)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            let cars: [Car] = try #require(controller.fetchedObjects)
            #expect(cars.count == 125)
            let sections = try #require(controller.sections)
            #expect(sections.reduce(0) { $0 + $1.numberOfObjects } == 125)
            let first: Car = controller.object(at: IndexPath(item: 0, section: 0))
            #expect(first.maker == sections[0].name || (first.maker == nil && sections[0].name.isEmpty))
            // A car whose plate moves it to the end of its maker's section.
            first.numberPlate = "ZZZ-999"
            context.processPendingChanges()
            let last = IndexPath(item: sections[0].numberOfObjects - 1, section: 0)
            #expect(recorder.take() == [.willChange, .object("?", from: IndexPath(item: 0, section: 0), .move, to: last), .didChange])
            #expect(controller.indexPath(forObject: first) == last)
        }
    }
}

extension NSFetchRequest {
    /// The request, sorted by `key` ascending.
    fileprivate func sorted(by key: String) -> Self {
        sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return self
    }

    /// The request, with a predicate.
    fileprivate func `where`(_ format: String) -> Self {
        predicate = NSPredicate(format: format)
        return self
    }
}
