import Foundation

/// Runs a staged migration before the coordinator opens a store: from the version the store was
/// written with, each following version in the stages' order up to the coordinator's model, a
/// lightweight migration per step, and a custom stage's handlers around its step. Each step
/// opens the store with a coordinator of its own, so a step is one in-place migration (one
/// SQLite transaction): a failure leaves the store at the last version reached, which the next
/// open continues from.
struct StagedMigrationRunner {
    /// Internal store option: models a migration may take as the store's source model, besides
    /// the versions of the bundle the destination came from (the stages' models may be built in
    /// code or come from elsewhere).
    static let sourceModelsOption = "OpenCoreDataMigrationSourceModels"

    let manager: NSStagedMigrationManager
    let storeType: String
    let configuration: String?
    let url: URL
    let options: [AnyHashable: Any]
    let destination: NSManagedObjectModel
    let log: MigrationLog

    /// One version in the stages' order, and the custom stage that leaves it, if one does.
    private struct Version {
        let checksum: String
        let model: NSManagedObjectModel
        var leavingStage: NSCustomMigrationStage?
    }

    func run() throws {
        // No store yet: nothing to migrate. A file is looked for; a store elsewhere (a database)
        // says so when asked for its metadata.
        if url.isFileURL, !FileManager.default.fileExists(atPath: url.path) { return }
        let metadata: [String: Any]
        do {
            metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: url, options: options)
        } catch let error as NSError where !url.isFileURL && error.domain == NSCocoaErrorDomain && error.code == NSFileNoSuchFileError {
            return
        }
        if destination.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) { return }
        guard let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Data] else {
            throw CoreDataError.make(
                NSStagedMigrationFrameworkVersionMismatchError,
                "The persistent store's metadata doesn't support staged lightweight migrations (it has no entity version hashes).")
        }
        let versions = try orderedVersions()
        // A store of a version the stages do not list is left to the ordinary migration.
        guard let start = versions.firstIndex(where: { $0.checksum == VersionHasher.checksum(of: hashes) }) else { return }
        let target = versions.firstIndex { $0.checksum == destination.versionChecksum } ?? versions.count - 1
        guard start <= target else {
            throw CoreDataError.make(
                NSStagedMigrationBackwardMigrationError,
                "The store at \(url.path) was written with a later model version (\(versions[start].checksum)) than the one it is opened with; staged migration does not migrate backward.")
        }
        let models = versions.map(\.model)
        log.step("staged migration of the store at \(url.path): \(target - start) step(s), from version \(versions[start].checksum) to \(versions[target].checksum)")
        for index in start..<target {
            let stage = versions[index].leavingStage
            log.step("stage \(index - start + 1) of \(target - start): to version \(versions[index + 1].checksum)\(stage == nil ? "" : ", a custom stage")")
            if let stage, let handler = stage.willMigrateHandler {
                try withContainer(on: versions[index].model) { try handler(manager, stage) }
            }
            try migrate(to: versions[index + 1].model, sources: models)
            if let stage, let handler = stage.didMigrateHandler {
                try withContainer(on: versions[index + 1].model) { try handler(manager, stage) }
            }
        }
    }

    /// Every version the stages name, in order, each once.
    ///
    /// - Throws: `NSManagedObjectModelReferenceNotFoundError` (134504) for a custom stage's model
    ///   that cannot be found, or a lightweight stage's checksum no known model has.
    private func orderedVersions() throws -> [Version] {
        // Models a lightweight stage may name: the custom stages', the destination and the other
        // versions of the bundle it came from.
        var known: [String: NSManagedObjectModel] = [destination.versionChecksum: destination]
        for case let stage as NSCustomMigrationStage in manager.stages {
            for reference in [stage.currentModel, stage.nextModel] { known[reference.versionChecksum] = try reference.resolve() }
        }
        var bundleVersions: [String: NSManagedObjectModel]?
        func model(_ checksum: String) throws -> NSManagedObjectModel {
            if let model = known[checksum] { return model }
            if bundleVersions == nil {
                bundleVersions = [:]
                for file in MigrationSourceModels.versionFiles(besides: destination) {
                    if let model = try? NSManagedObjectModel(validatingContentsOf: file) { bundleVersions![model.versionChecksum] = model }
                }
            }
            guard let model = bundleVersions![checksum] else {
                throw CoreDataError.make(
                    NSManagedObjectModelReferenceNotFoundError,
                    "No model with version checksum \(checksum), named by a lightweight migration stage, was found.",
                    userInfo: ["versionChecksum": checksum])
            }
            return model
        }

        var versions: [Version] = []
        func append(_ checksum: String, _ model: NSManagedObjectModel) {
            if versions.last?.checksum != checksum { versions.append(Version(checksum: checksum, model: model)) }
        }
        for stage in manager.stages {
            switch stage {
            case let custom as NSCustomMigrationStage:
                append(custom.currentModel.versionChecksum, try custom.currentModel.resolve())
                versions[versions.count - 1].leavingStage = custom
                append(custom.nextModel.versionChecksum, try custom.nextModel.resolve())
            case let lightweight as NSLightweightMigrationStage:
                for checksum in lightweight.versionChecksums { append(checksum, try model(checksum)) }
            default:
                continue
            }
        }
        return versions
    }

    /// Opens the store with `model`, migrating it there in place, and closes it again.
    private func migrate(to model: NSManagedObjectModel, sources: [NSManagedObjectModel]) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        coordinator.migrationLog = log
        var stepOptions = options
        stepOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        stepOptions[NSMigratePersistentStoresAutomaticallyOption] = true
        stepOptions[NSInferMappingModelAutomaticallyOption] = true
        stepOptions[Self.sourceModelsOption] = sources
        let store = try coordinator.addPersistentStore(ofType: storeType, configurationName: configuration, at: url, options: stepOptions)
        try coordinator.remove(store)
    }

    /// Runs `body` with the manager's `container` open on the store with `model`.
    private func withContainer(on model: NSManagedObjectModel, _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = storeType
        description.configuration = configuration
        let skipped = [NSPersistentStoreStagedMigrationManagerOptionKey, NSMigratePersistentStoresAutomaticallyOption, NSInferMappingModelAutomaticallyOption]
        for case let (key as String, value) in options where !skipped.contains(key) {
            switch value {
            case let flag as Bool: description.setOption(NSNumber(value: flag), forKey: key)
            case let number as Int: description.setOption(NSNumber(value: number), forKey: key)
            case let number as Double: description.setOption(NSNumber(value: number), forKey: key)
            case let text as String: description.setOption(NSString(string: text), forKey: key)
            case let object as NSObject: description.setOption(object, forKey: key)
            default: continue
            }
        }
        description.shouldMigrateStoreAutomatically = false
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        manager.container = container
        defer {
            manager.container = nil
            for store in container.persistentStoreCoordinator.persistentStores {
                try? container.persistentStoreCoordinator.remove(store)
            }
        }
        try body()
    }
}
