import OpenCoreData
import ArgumentParser

/// The app's Core Data stack, built from the Xcode model shipped with the program.
enum TodoModel {
    /// The `Done.xcdatamodeld` resource, loaded the way an app on Linux loads its model.
    static func load() throws -> NSManagedObjectModel {
        guard let url = Bundle.module.url(forResource: "Done", withExtension: "xcdatamodeld") else {
            throw ValidationError("The program's model resource Done.xcdatamodeld is missing.")
        }
        return try NSManagedObjectModel(validatingContentsOf: url)
    }

    /// A container whose single SQLite store is the file at `storeURL`.
    static func container(model: NSManagedObjectModel, storeURL: URL) -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Done", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        return container
    }

    /// Loads the container's stores, turning the callback's error into a thrown one.
    static func loadStores(of container: NSPersistentContainer) throws {
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
    }
}

