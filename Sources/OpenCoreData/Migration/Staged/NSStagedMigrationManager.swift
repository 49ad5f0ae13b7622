/// The stages that take a store from any version it may have been written with to the current
/// one. Give it to the store through `NSPersistentStoreStagedMigrationManagerOptionKey`; the
/// coordinator then runs, from the store's version on, every stage up to the model the store
/// is opened with.
open class NSStagedMigrationManager: NSObject {
    /// The stages, in order: together they list every model version once, oldest first.
    public let stages: [NSMigrationStage]
    /// While a custom stage's handler runs, a container with the store open on the stage's
    /// model (the current one before the schema changes, the next one after); nil otherwise.
    open internal(set) var container: NSPersistentContainer?

    /// A manager of `stages`.
    ///
    /// - Parameter stages: Lightweight and custom stages that, in order, list every model
    ///   version a store may have, oldest first.
    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }
}
