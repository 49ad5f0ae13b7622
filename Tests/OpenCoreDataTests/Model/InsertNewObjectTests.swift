import Foundation
import Testing
@testable import OpenCoreData

/// `NSEntityDescription.insertNewObject(forEntityName:into:)` remembers the entity it found last
/// (inserting loops ask for one name over and over); the entity must still be the one of the
/// context's current model.
@Suite struct InsertNewObjectTests {
    @Test func anEntityIsLookedUpAgainAfterTheContextChangesCoordinator() throws {
        let directory = TemporaryDirectory()
        let first = try TestStack(model: TestModels.todo(), directory: directory, name: "First.sqlite")
        let second = try TestStack(model: TestModels.todo(), directory: directory, name: "Second.sqlite")
        let context = first.context
        let (before, after) = try context.performAndWait {
            let before = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            context.reset()
            context.persistentStoreCoordinator = second.coordinator
            let after = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            after.setValue("x", forKey: "name")
            try context.save()
            return (before.entity, after.entity)
        }
        #expect(before.managedObjectModel === first.coordinator.managedObjectModel)
        #expect(after.managedObjectModel === second.coordinator.managedObjectModel)
        let saved = try second.context.performAndWait {
            try second.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
        }
        #expect(saved == 1)
    }
}
