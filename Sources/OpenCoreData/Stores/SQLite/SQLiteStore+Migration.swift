import Foundation
import GRDB

/// A store written with another version of the model: found, inferred and migrated in place when
/// the options ask for it (`NSMigratePersistentStoresAutomaticallyOption` and
/// `NSInferMappingModelAutomaticallyOption`, which `NSPersistentStoreDescription` sets by default).
extension SQLiteStore {
    /// What migrating a store needs: the model it was written with and the mapping to this one.
    struct MigrationPlan {
        let source: NSManagedObjectModel
        let mapping: NSMappingModel
    }

    /// The plan for a store whose hashes are `found`'s, or the error Core Data gives instead.
    ///
    /// - Throws: `NSPersistentStoreIncompatibleVersionHashError` (134100) without the migrate
    ///   option or on a read-only store; `NSMigrationMissingSourceModelError` (134130) when no
    ///   version of the model has the store's hashes; `NSMigrationMissingMappingModelError`
    ///   (134140) when no mapping can be inferred, with the inference's 134190 as
    ///   `NSUnderlyingError`.
    func migrationPlan(for found: [String: Any], model: NSManagedObjectModel, path: String, incompatible: NSError) throws -> MigrationPlan {
        guard Self.flag(NSMigratePersistentStoresAutomaticallyOption, in: options), !isReadOnly else { throw incompatible }
        let candidates = options?[StagedMigrationRunner.sourceModelsOption] as? [NSManagedObjectModel] ?? []
        guard let source = MigrationSourceModels.model(matching: found, besides: model, candidates: candidates) else {
            throw CoreDataError.make(
                NSMigrationMissingSourceModelError, "Can't find model for source store at \(path).",
                userInfo: ["reason": "Can't find model for source store", "URL": URL(fileURLWithPath: path), "metadata": found])
        }
        // A compiled mapping model comes before inference; the coordinator runs it.
        if let mapping = MappingModelSearch.mapping(from: source, to: model, options: options) {
            throw MappingModelMigrationNeeded(source: source, mapping: mapping)
        }
        let reason = "Can't find or automatically infer mapping model for migration"
        guard Self.flag(NSInferMappingModelAutomaticallyOption, in: options) else {
            throw CoreDataError.make(NSMigrationMissingMappingModelError, "\(reason) of the store at \(path).", userInfo: ["reason": reason])
        }
        do {
            return MigrationPlan(source: source, mapping: try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: model))
        } catch {
            throw CoreDataError.make(
                NSMigrationMissingMappingModelError, "\(reason) of the store at \(path): \((error as NSError).localizedDescription)",
                userInfo: ["reason": reason, "sourceModel": source, "destinationModel": model, NSUnderlyingErrorKey: error as NSError])
        }
    }

    /// Runs the plan in one transaction and returns the migrated store's metadata. A store that
    /// another process migrated meanwhile is left as it is.
    func migrate(_ plan: MigrationPlan, model: NSManagedObjectModel, entities: [NSEntityDescription], path: String) throws -> [String: Any] {
        let started = Date()
        let log = persistentStoreCoordinator?.migrationLog ?? .off
        log.step("migrating the store at \(path) in place, with \(plan.mapping.isInferred ? "an inferred" : "a") mapping model: \(plan.mapping.entityMappings.map { "\($0.name ?? "?") (\($0.mappingType))" }.joined(separator: ", "))")
        // Made here, on the caller's thread, to be a child of its current `Progress`; the
        // migration itself runs on the writer's queue.
        let progress = Progress(totalUnitCount: 1)
        let migrated: [String: Any] = try pool!.barrierWriteWithoutTransaction { db in
            var result: [String: Any] = [:]
            try db.inTransaction(.immediate) {
                guard let (plist, uuid) = try SQLiteMetadata.row(in: db) else {
                    throw SQLiteFileCheck.notAStore(path, reason: "its Z_METADATA table is empty", sqliteCode: nil)
                }
                let current = try StoreMetadata.decode(plist: plist, uuid: uuid)
                if !StoreMetadata.hashesMatch(current, entities: entities) {
                    try SQLiteInPlaceMigration(
                        source: plan.source, destination: model, mapping: plan.mapping, metadata: current, uuid: uuid, progress: progress, log: log,
                        defersTableCopies: Self.flag(NSPersistentStoreDeferredLightweightMigrationOptionKey, in: options)
                    ).run(in: db, path: path)
                }
                guard let (newPlist, newUUID) = try SQLiteMetadata.row(in: db) else { return .rollback }
                result = try StoreMetadata.decode(plist: newPlist, uuid: newUUID)
                return .commit
            }
            return result
        }
        progress.completedUnitCount = progress.totalUnitCount
        log.completed("in-place migration", seconds: Date().timeIntervalSince(started))
        return migrated
    }
}
