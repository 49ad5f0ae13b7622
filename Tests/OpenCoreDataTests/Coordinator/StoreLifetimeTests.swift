import Foundation
import Testing

@testable import OpenCoreData

/// Objects refer to their store without retaining it; the coordinator keeps every store it held,
/// removed ones too, so that objects of a removed store stay usable: their IDs no longer name a
/// store, and the values read before the removal stay.
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
}
