import Foundation
import Testing

@testable import OpenCoreData

/// Objects refer to their store without retaining it; the coordinator keeps every store it held,
/// removed ones too, so that objects of a removed store stay usable: their IDs no longer name a
/// store, and the values read before the removal stay. An object that outlives its whole stack
/// keeps its ID and the values it read.
@Suite struct StoreLifetimeTests {
    @Test func objectsOfARemovedStoreOutliveItsRemoval() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        weak var weakStore: NSPersistentStore?
        let (faults, loaded): ([NSManagedObject], NSManagedObject) = try {
            let store = try coordinator.addPersistentStore(type: .sqlite, at: directory.file("Removed.sqlite"))
            weakStore = store
            return try context.performAndWait {
                for index in 0..<5 { ConformanceStack.insert("TSPItem", ["name": "Item \(index)"], into: context) }
                try context.save()
                context.reset()
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                let faults = try context.fetch(request)
                request.returnsObjectsAsFaults = false
                request.fetchLimit = 1
                let loaded = try context.fetch(request)[0]
                return (faults, loaded)
            }
        }()
        try coordinator.remove(coordinator.persistentStores[0])
        #expect(weakStore != nil, "the coordinator keeps the removed store for its objects")
        context.performAndWait {
            #expect(loaded.value(forKey: "name") as? String == "Item 0")
            for object in faults {
                #expect(object.objectID.persistentStore == nil)
                #expect(object.objectID.entity.name == "TSPItem")
            }
            // The fetch read the rows along with the keys: the faults fill from them.
            #expect(faults.last?.value(forKey: "name") as? String == "Item 4")
        }
    }

    /// Saves five items in a stack made here, then returns faults of them, one filled object, the
    /// URIs their IDs had, and weak references to the coordinator and store, all made inside.
    private static func outlivingObjects(in directory: TemporaryDirectory, removingStore: Bool) throws
        -> (objects: [NSManagedObject], filled: NSManagedObject, uris: Set<URL>, coordinator: () -> NSPersistentStoreCoordinator?)
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        weak let weakCoordinator = coordinator
        let store = try coordinator.addPersistentStore(type: .sqlite, at: directory.file("Stack.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let result = try context.performAndWait {
            for index in 0..<5 { ConformanceStack.insert("TSPItem", ["name": "Item \(index)"], into: context) }
            try context.save()
            context.reset()
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem")
            ids.resultType = .managedObjectIDResultType
            let uris = Set(try context.fetch(ids).map { $0.uriRepresentation() })
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            // Faults whose IDs were never asked for: made after the stack is gone.
            let faults = try context.fetch(request)
            let filled = faults[0]
            _ = filled.value(forKey: "name")
            return (faults, filled, uris)
        }
        if removingStore { try coordinator.remove(store) }
        return (result.0, result.1, result.2, { weakCoordinator })
    }

    @Test func anObjectThatOutlivesItsStackKeepsItsIDAndValues() throws {
        let directory = TemporaryDirectory()
        let kept = try Self.outlivingObjects(in: directory, removingStore: false)
        #expect(kept.coordinator() == nil, "objects do not keep their coordinator")
        #expect(kept.objects.allSatisfy { $0.managedObjectContext == nil })
        #expect(Set(kept.objects.map { $0.objectID.uriRepresentation() }) == kept.uris)
        #expect(kept.objects.allSatisfy { !$0.objectID.isTemporaryID })
        #expect(kept.filled.value(forKey: "name") as? String == "Item 0")
    }

    @Test func anObjectOfARemovedStoreOutlivesItsStack() throws {
        let directory = TemporaryDirectory()
        let kept = try Self.outlivingObjects(in: directory, removingStore: true)
        #expect(kept.coordinator() == nil)
        #expect(Set(kept.objects.map { $0.objectID.uriRepresentation() }) == kept.uris)
        #expect(kept.objects.allSatisfy { $0.objectID.persistentStore == nil }, "the store left its coordinator")
        #expect(kept.filled.value(forKey: "name") as? String == "Item 0")
    }
}
