import Foundation

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// What the PostgreSQL suites open: a private-queue context on a coordinator holding one
/// PostgreSQL store, and the count of its to-do items.
enum PostgreSQLStack {
    static let type = NSPersistentStore.StoreType(rawValue: PostgreSQLStoreInstaller.typeName)

    static func context(_ url: URL, model: NSManagedObjectModel = TestModels.todo(), options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// How many `TSPItem`s the context's store holds.
    static func itemCount(_ context: NSManagedObjectContext) throws -> Int {
        try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
    }
}
