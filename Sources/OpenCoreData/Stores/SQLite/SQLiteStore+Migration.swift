import Foundation
import GRDB

/// A store written with another version of the model, migrated in place in its file
/// (`migrationPlan(for:model:location:incompatible:)` decides whether and how).
extension SQLiteStore {
    /// Runs the plan in one transaction and returns the migrated store's metadata. A store that
    /// another process migrated meanwhile is left as it is.
    func migrate(_ plan: StoreMigrationPlan, model: NSManagedObjectModel, entities: [NSEntityDescription], path: String) throws -> [String: Any] {
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
                    let steps = InPlaceMigrationSteps(
                        source: plan.source, destination: model, mapping: plan.mapping, progress: progress, log: log,
                        defersTableCopies: Self.flag(NSPersistentStoreDeferredLightweightMigrationOptionKey, in: options))
                    try SQLiteInPlaceMigration(steps: steps, metadata: current, uuid: uuid).run(in: db, path: path)
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
