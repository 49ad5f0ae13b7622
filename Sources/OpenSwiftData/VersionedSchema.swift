import OpenCoreData

/// One version of an app's models, for a migration plan: the classes (conventionally nested in
/// the version's enum) and the version's number.
public protocol VersionedSchema {
    /// The version, recorded in the store's metadata.
    static var versionIdentifier: Schema.Version { get }
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// How a store moves from each version of the models to the next: the versions in order, and a
/// stage between each two.
public protocol SchemaMigrationPlan {
    /// Every version, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between consecutive versions, in order.
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: @unchecked Sendable {
    // @unchecked Sendable: the handlers run once, during the container's creation.

    /// A change Core Data infers: added, removed and renamed (`originalName:`) properties and
    /// models, optionality, defaults.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A change with code around it: `willMigrate` sees the store with the old version's classes
    /// before it moves (to fix data the new version refuses), `didMigrate` with the new ones after.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type, willMigrate: ((ModelContext) throws -> Void)?,
        didMigrate: ((ModelContext) throws -> Void)?)
}

extension Schema {
    /// The schema of a version of the models.
    ///
    /// - Parameter versionedSchema: The version.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

extension SchemaMigrationPlan {
    /// The plan as Core Data's staged migration: a stage per step, each between the two
    /// versions' models; a custom stage's handlers get a context on the version's classes.
    static func stagedMigrationManager() -> NSStagedMigrationManager {
        var schemas: [ObjectIdentifier: Schema] = [:]
        func schema(_ version: any VersionedSchema.Type) -> Schema {
            if let known = schemas[ObjectIdentifier(version)] { return known }
            let made = Schema(versionedSchema: version)
            schemas[ObjectIdentifier(version)] = made
            return made
        }
        let stages = self.stages.map { stage -> NSMigrationStage in
            let (from, to, willMigrate, didMigrate): (any VersionedSchema.Type, any VersionedSchema.Type, ((ModelContext) throws -> Void)?, ((ModelContext) throws -> Void)?) =
                switch stage {
                case .lightweight(let from, let to): (from, to, nil, nil)
                case .custom(let from, let to, let willMigrate, let didMigrate): (from, to, willMigrate, didMigrate)
                }
            let (current, next) = (schema(from), schema(to))
            let custom = NSCustomMigrationStage(
                migratingFrom: NSManagedObjectModelReference(model: current.managedObjectModel, versionChecksum: current.managedObjectModel.versionChecksum),
                to: NSManagedObjectModelReference(model: next.managedObjectModel, versionChecksum: next.managedObjectModel.versionChecksum))
            if let willMigrate {
                custom.willMigrateHandler = { manager, _ in try runHandler(willMigrate, schema: current, manager: manager) }
            }
            if let didMigrate {
                custom.didMigrateHandler = { manager, _ in try runHandler(didMigrate, schema: next, manager: manager) }
            }
            return custom
        }
        return NSStagedMigrationManager(stages)
    }

    private static func runHandler(_ handler: (ModelContext) throws -> Void, schema: Schema, manager: NSStagedMigrationManager) throws {
        guard let coordinator = manager.container?.persistentStoreCoordinator else { return }
        try handler(ModelContext(ModelContainer(schema: schema, coordinator: coordinator)))
    }
}
