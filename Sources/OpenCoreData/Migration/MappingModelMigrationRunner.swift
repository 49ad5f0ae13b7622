import Foundation

/// Migrates a store with a compiled mapping model, when the store (opening) found itself written
/// with another version and a `.cdm` maps that version to the coordinator's model: Core Data
/// prefers such a mapping to an inferred one. The migration writes a new store
/// beside the old one, which it only reads, and then puts the new one in the old one's place in
/// one atomic step: a crash at any moment leaves the old store or the new one, never a mixture.
struct MappingModelMigrationRunner {
    let storeClass: NSPersistentStore.Type
    let storeType: String
    let url: URL
    let options: [AnyHashable: Any]
    let destination: NSManagedObjectModel
    let log: MigrationLog

    /// Migrates the store with `needed`'s mapping into a new file and installs it in the old one's
    /// place.
    func run(_ needed: MappingModelMigrationNeeded) throws {
        let (source, mapping) = (needed.source, needed.mapping)
        let temporary = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".migrating")
        // What an interrupted migration left; the store itself was never touched.
        guard let files = storeClass as? any StoreFileOperations.Type else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "Stores of type '\(storeType)' can't be migrated into a new file.",
                userInfo: [NSFilePathErrorKey: url.path])
        }
        files.discardStoreFiles(at: temporary)
        var storeOptions = options
        for key in [NSMigratePersistentStoresAutomaticallyOption, NSPersistentStoreStagedMigrationManagerOptionKey, StagedMigrationRunner.sourceModelsOption] {
            storeOptions[key] = nil
        }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        manager.log = log
        log.step("migrating the store at \(url.path) with a compiled mapping model into \(temporary.lastPathComponent)")
        try manager.migrateStore(
            from: url, sourceType: storeType, options: storeOptions, with: mapping,
            toDestinationURL: temporary, destinationType: storeType, destinationOptions: storeOptions)
        do {
            try files.installMigratedStore(from: temporary, at: url)
        } catch {
            files.discardStoreFiles(at: temporary)
            throw error
        }
    }
}

/// What a store reports when it finds itself written with another model version for which a
/// compiled mapping model exists: the coordinator then runs that migration (with contexts, which
/// a store does not know) and opens the store again.
///
/// `@unchecked Sendable`: it only travels from the store's `load` to the coordinator's `addStore`
/// that called it, on one thread.
package struct MappingModelMigrationNeeded: Error, @unchecked Sendable {
    let source: NSManagedObjectModel
    let mapping: NSMappingModel
}

/// Finds the compiled mapping model for a migration.
enum MappingModelSearch {
    /// Core Data's private store option: the bundles to search for source and mapping models.
    static let resourceBundlesOption = "NSPersistentStoreCoordinatorResourceBundlesForMigration"

    /// The compiled mapping from `source` to `destination`, when one lies in the bundles the
    /// options name, beside the destination model's file, or in the main bundle.
    static func mapping(from source: NSManagedObjectModel, to destination: NSManagedObjectModel, options: [AnyHashable: Any]?) -> NSMappingModel? {
        NSMappingModel.mapping(among: mappingFiles(besides: destination, options: options), from: source, to: destination)
    }

    /// Where compiled mapping models may lie: the bundles the option names, the folder holding
    /// the model (an app's resources), and the main bundle.
    private static func mappingFiles(besides destination: NSManagedObjectModel, options: [AnyHashable: Any]?) -> [URL] {
        var files: [URL] = []
        for bundle in options?[resourceBundlesOption] as? [Bundle] ?? [] { files += NSMappingModel.compiledMappingFiles(in: bundle) }
        if var folder = MigrationSourceModels.modelBundle(of: destination) {
            if ["xcdatamodeld", "momd"].contains(folder.pathExtension) { folder.deleteLastPathComponent() }
            files += NSMappingModel.compiledMappingFiles(inFolder: folder)
        }
        files += NSMappingModel.compiledMappingFiles(in: .main)
        var seen = Set<String>()
        return files.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }
}
