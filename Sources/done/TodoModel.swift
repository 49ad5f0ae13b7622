import OpenCoreData
import ArgumentParser

/// The app's Core Data stack on a chosen store file.
enum TodoModel {
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

