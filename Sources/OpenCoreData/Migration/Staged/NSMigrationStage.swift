/// One step of a staged migration: `NSLightweightMigrationStage` for model versions a migration
/// can infer, `NSCustomMigrationStage` for a step that needs the app's code around it.
open class NSMigrationStage: NSObject {
    /// A name for the stage, for logs and the app's own use.
    open var label: String?

    override init() {
        super.init()
    }
}

/// Model versions that follow each other by lightweight (inferred) migration, named by their
/// `versionChecksum`s in order. The models themselves are found among the versions of the model
/// the store is opened with (its `.xcdatamodeld` or `.momd`) and the stages' own models.
open class NSLightweightMigrationStage: NSMigrationStage {
    /// The checksums of the model versions, oldest first.
    public let versionChecksums: [String]

    /// A stage through the model versions whose checksums are `versionChecksums`.
    ///
    /// - Parameter versionChecksums: Each version's `NSManagedObjectModel.versionChecksum` (Xcode
    ///   lists them in a `.momd`'s `VersionInfo.plist`), oldest first.
    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        super.init()
    }
}

/// A migration from one model version to the next with the app's code before and after it: the
/// schema changes as a lightweight migration would change it, and the handlers move data.
open class NSCustomMigrationStage: NSMigrationStage {
    /// The version the stage starts from.
    public let currentModel: NSManagedObjectModelReference
    /// The version the stage ends at.
    public let nextModel: NSManagedObjectModelReference
    /// Runs before the schema changes, with the manager's `container` open on `currentModel`.
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the schema changed, with the manager's `container` open on `nextModel`.
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// A stage from `currentModel` to `nextModel`.
    ///
    /// - Parameters:
    ///   - currentModel: The version the stage starts from.
    ///   - nextModel: The version the stage ends at.
    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}
