import Foundation
import Testing

@testable import OpenCoreData

/// The point of bit-exact hashes: a model loaded from Xcode's XML opens the store Apple's Core
/// Data wrote with it, and refuses the store of another version.
@Suite struct LoadedModelStoreTests {
    @Test func theLoadedModelOpensApplesStore() throws {
        let folder = TemporaryDirectory()
        try withExtendedLifetime(folder) {
            let copy = folder.file("SampleModel_V1.sqlite")
            try Data(contentsOf: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite")).write(to: copy)
            let model = try FixtureModelVersion.sampleModel("SampleModel").load()
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: copy)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let counts = try context.performAndWait { () throws -> [Int] in
                try ["Car", "SportCar", "ExpensiveSportCar", "Person"].map {
                    try context.count(for: NSFetchRequest<NSManagedObject>(entityName: $0))
                }
            }
            // 115 plain cars, 5 sport cars and 5 expensive ones, counted with their subentities.
            #expect(counts == [125, 10, 5, 20])
        }
    }

    @Test func anotherVersionIsRefused() throws {
        let folder = TemporaryDirectory()
        try withExtendedLifetime(folder) {
            let copy = folder.file("SampleModel_V1.sqlite")
            try Data(contentsOf: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite")).write(to: copy)
            let model = try FixtureModelVersion.sampleModel("SampleModel2").load()
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: copy) }
            #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        }
    }
}
