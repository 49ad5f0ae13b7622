import Foundation
import OpenCoreData

/// The models' store and the schema it follows: made once per app for its model classes, it
/// opens (or creates) each configuration's store, migrating lightweight where the schema changed
/// in a way Core Data infers, and hands out contexts to work in.
public final class ModelContainer: @unchecked Sendable {
    // @unchecked Sendable: everything is set once in the initializer; the coordinator is
    // thread-safe and `mainContext` is main-actor bound.

    /// The models the container stores.
    public let schema: Schema
    /// How its stores move from older versions of the models, if the app gave a plan.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// Where it stores them.
    public let configurations: [ModelConfiguration]
    /// The Core Data stack underneath.
    let coordinator: NSPersistentStoreCoordinator
    @MainActor private var mainContextStorage: ModelContext?

    /// A container for `types` (and the models they relate to).
    ///
    /// - Parameters:
    ///   - forTypes: The model classes.
    ///   - configurations: Where to store them; the default store when none is given.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a store cannot be opened, the
    ///   file left as it was.
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// A container for `types`, migrating their stores as `migrationPlan` says.
    ///
    /// - Parameters:
    ///   - forTypes: The model classes (the plan's last version's).
    ///   - migrationPlan: The versions and stages a store written by an older version goes
    ///     through; nil for lightweight migration only.
    ///   - configurations: Where to store them; the default store when none is given.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a store cannot be opened or
    ///   migrated, the file left as it was.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes, version: migrationPlan?.schemas.last?.versionIdentifier ?? Schema.Version(1, 0, 0)), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for the models of `givenSchema`, migrating their stores as `migrationPlan` says.
    ///
    /// - Parameters:
    ///   - givenSchema: The models.
    ///   - migrationPlan: The versions and stages a store written by an older version goes through.
    ///   - configurations: Where to store them.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a store cannot be opened or migrated.
    public convenience init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: ModelConfiguration...) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for the models of `schema`.
    ///
    /// - Parameters:
    ///   - givenSchema: The models.
    ///   - configurations: Where to store them; the default store when none is given.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a store cannot be opened.
    public convenience init(for givenSchema: Schema, configurations: ModelConfiguration...) throws {
        try self.init(for: givenSchema, configurations: configurations)
    }

    /// A container for the models of `givenSchema`, stored as `configurations` say.
    ///
    /// - Parameters:
    ///   - givenSchema: The models.
    ///   - configurations: Where to store them; the default store when empty.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a store cannot be opened.
    public convenience init(for givenSchema: Schema, configurations: [ModelConfiguration]) throws {
        try self.init(for: givenSchema, migrationPlan: nil, configurations: configurations)
    }

    /// A container for the models of `givenSchema`, stored as `configurations` say and migrated as
    /// `migrationPlan` says.
    ///
    /// - Parameters:
    ///   - givenSchema: The models.
    ///   - migrationPlan: The versions and stages a store written by an older version goes through.
    ///   - configurations: Where to store them; the default store when empty. A configuration with
    ///     a schema of its own keeps only those models, in its own store.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a store cannot be opened or migrated,
    ///   or a configuration's schema cannot be kept (`StoreConfigurations`).
    public init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: [ModelConfiguration]) throws {
        schema = givenSchema
        self.migrationPlan = migrationPlan
        self.configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        // Before the coordinator uses the model, which may then no longer change.
        let names = try StoreConfigurations.names(for: self.configurations, in: givenSchema, migrating: migrationPlan != nil)
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: givenSchema.managedObjectModel)
        for (configuration, name) in zip(self.configurations, names) {
            try addStore(for: configuration, configurationName: name)
        }
    }

    /// Opens `configuration`'s store, keeping the entities of the Core Data configuration `name`
    /// (every entity for nil).
    private func addStore(for configuration: ModelConfiguration, configurationName name: String?) throws {
        var options: [AnyHashable: Any] = [
            NSPersistentHistoryTrackingKey: true as NSNumber,
            NSMigratePersistentStoresAutomaticallyOption: true as NSNumber,
            NSInferMappingModelAutomaticallyOption: true as NSNumber,
        ]
        if !configuration.allowsSave { options[NSReadOnlyPersistentStoreOption] = true as NSNumber }
        if let migrationPlan { options[NSPersistentStoreStagedMigrationManagerOptionKey] = migrationPlan.stagedMigrationManager() }
        do {
            if configuration.isStoredInMemoryOnly {
                try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: name, at: nil, options: options)
            } else if configuration.isPostgreSQL {
                guard LinkedStoreTypes.ensureRegistered("PostgreSQL", installerClassName: "OpenCoreDataPostgreSQL.PostgreSQLLinkedStoreInstaller") else {
                    throw SwiftDataError.loadIssueModelContainer.because(
                        "\(configuration.redactedLocation): a postgres:// store needs the OpenCoreDataPostgreSQL product linked into the app")
                }
                try coordinator.addPersistentStore(ofType: "PostgreSQL", configurationName: name, at: configuration.url, options: options)
            } else {
                try FileManager.default.createDirectory(at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: name, at: configuration.url, options: options)
            }
        } catch {
            if let error = error as? SwiftDataError { throw error }
            throw SwiftDataError.loadIssueModelContainer.because("\(configuration.redactedLocation): \(error)")
        }
    }

    deinit {
        // New models stop starting in this container's entities, which may go with it.
        SchemaRegistry.forgetUnattachedEntities(of: coordinator.managedObjectModel)
    }

    /// A container over a coordinator a migration opened, for a stage's handler.
    init(schema: Schema, coordinator: NSPersistentStoreCoordinator) {
        self.schema = schema
        migrationPlan = nil
        configurations = []
        self.coordinator = coordinator
    }

    /// The context of the main actor, for the user interface; it saves by itself
    /// (`autosaveEnabled`).
    @MainActor public var mainContext: ModelContext {
        if let context = mainContextStorage { return context }
        let context = ModelContext(self)
        context.autosaveEnabled = true
        context.isMainContext = true
        mainContextStorage = context
        return context
    }

    /// Removes every model from the container's stores.
    public func deleteAllData() {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for entity in schema.managedObjectModel.entities where entity.superentity == nil {
            guard let name = entity.name else { continue }
            // Non-throwing, as SwiftData's: a read-only store keeps its rows.
            _ = try? context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: name)))
        }
    }
}
