import Foundation

/// What migrating a store in place needs: the model it was written with and the mapping to this one.
package struct StoreMigrationPlan {
    package let source: NSManagedObjectModel
    package let mapping: NSMappingModel
}

/// A store written with another version of the model: found, inferred and migrated in place when
/// the options ask for it (`NSMigratePersistentStoresAutomaticallyOption` and
/// `NSInferMappingModelAutomaticallyOption`, which `NSPersistentStoreDescription` sets by
/// default), whichever store holds it.
extension NSPersistentStore {
    /// The plan for a store whose hashes are `found`'s, or the error Core Data gives instead.
    ///
    /// - Parameters:
    ///   - found: The store's metadata.
    ///   - model: The coordinator's model.
    ///   - location: Where the store is, for the errors.
    ///   - incompatible: The error when the store is not to be migrated.
    /// - Returns: The model the store was written with and the inferred mapping to `model`.
    /// - Throws: `NSPersistentStoreIncompatibleVersionHashError` (134100) without the migrate
    ///   option or on a read-only store; `NSMigrationMissingSourceModelError` (134130) when no
    ///   version of the model has the store's hashes; `NSMigrationMissingMappingModelError`
    ///   (134140) when no mapping can be inferred, with the inference's 134190 as
    ///   `NSUnderlyingError`.
    package func migrationPlan(
        for found: [String: Any], model: NSManagedObjectModel, location: String, incompatible: NSError,
        cachedModel: () -> NSManagedObjectModel? = { nil }
    ) throws -> StoreMigrationPlan {
        guard Self.flag(NSMigratePersistentStoresAutomaticallyOption, in: options), !isReadOnly else { throw incompatible }
        let candidates = options?[StagedMigrationRunner.sourceModelsOption] as? [NSManagedObjectModel] ?? []
        guard let source = MigrationSourceModels.model(matching: found, besides: model, candidates: candidates, cached: cachedModel) else {
            var info: [String: Any] = ["reason": "Can't find model for source store", "metadata": found]
            info["URL"] = url
            throw CoreDataError.make(NSMigrationMissingSourceModelError, "Can't find model for source store at \(location).", userInfo: info)
        }
        // A compiled mapping model comes before inference; the coordinator runs it.
        if let mapping = MappingModelSearch.mapping(from: source, to: model, options: options) {
            throw MappingModelMigrationNeeded(source: source, mapping: mapping)
        }
        let reason = "Can't find or automatically infer mapping model for migration"
        guard Self.flag(NSInferMappingModelAutomaticallyOption, in: options) else {
            throw CoreDataError.make(NSMigrationMissingMappingModelError, "\(reason) of the store at \(location).", userInfo: ["reason": reason])
        }
        do {
            return StoreMigrationPlan(source: source, mapping: try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: model))
        } catch {
            throw CoreDataError.make(
                NSMigrationMissingMappingModelError, "\(reason) of the store at \(location): \((error as NSError).localizedDescription)",
                userInfo: ["reason": reason, "sourceModel": source, "destinationModel": model, NSUnderlyingErrorKey: error as NSError])
        }
    }
}
