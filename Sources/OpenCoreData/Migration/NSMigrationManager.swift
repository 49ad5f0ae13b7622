import Foundation

/// Migrates a store with a mapping model: loads the source store's objects into `sourceContext`,
/// and for each entity mapping, with its `NSEntityMigrationPolicy`, creates the destination
/// objects in `destinationContext` (pass 1), their relationships (pass 2) and validates them
/// (pass 3), then saves them into a new store at the destination URL.
///
/// An inferred mapping between SQLite stores is carried out in place in SQL instead, as Core
/// Data's store-specific manager does (`usesStoreSpecificMigrationManager`): the source is copied
/// to the destination, which is then migrated where it lies, without loading any object.
open class NSMigrationManager: NSObject {
    /// The model of the source store.
    public let sourceModel: NSManagedObjectModel
    /// The model of the destination store.
    public let destinationModel: NSManagedObjectModel
    /// The mapping model of the migration running; nil between migrations.
    open private(set) var mappingModel: NSMappingModel!
    /// The context holding the source store's objects while a migration runs.
    open private(set) var sourceContext: NSManagedObjectContext!
    /// The context the destination objects are created in while a migration runs.
    open private(set) var destinationContext: NSManagedObjectContext!
    /// The entity mapping being run.
    open private(set) var currentEntityMapping: NSEntityMapping!
    /// How far the migration is, from 0 to 1.
    open private(set) var migrationProgress: Float = 0
    /// Whatever the app's policies want to share during a migration.
    open var userInfo: [AnyHashable: Any]?
    /// Whether an inferred mapping between SQLite stores runs in place in SQL (the default).
    open var usesStoreSpecificMigrationManager = true

    /// Instances a migration with contexts reads and makes between two saves of the destination.
    var instancesPerBatch = 5_000
    /// Where the migration's steps are told (`MigrationDebug`).
    var log = MigrationLog(level: MigrationDebug.processLevel, sqlLevel: SQLDebug.processLevel, logger: SQLDebug.defaultLogger)

    var associations: MigrationAssociations?
    var batches = MigrationBatches(size: 5_000)
    private var cancellation: Error?
    private var progress: Progress?

    /// A manager for migrations from `sourceModel` to `destinationModel`.
    ///
    /// - Parameters:
    ///   - sourceModel: The model the source store was written with.
    ///   - destinationModel: The model of the store to make.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        super.init()
    }

    /// Migrates the store at `sourceURL` into a store at `destinationURL`, with `mapping`.
    ///
    /// Progress is reported to the `Progress` current on the calling thread, if any (one unit per
    /// pass of an entity mapping); cancelling it cancels the migration.
    ///
    /// - Parameters:
    ///   - sourceURL: The store to migrate; it is opened read-only and left as it is.
    ///   - sourceType: Its type.
    ///   - sourceOptions: Options to open it with.
    ///   - mapping: How to map its objects.
    ///   - destinationURL: Where the migrated store is written; it must be another URL.
    ///   - destinationType: The migrated store's type.
    ///   - destinationOptions: Options to open it with.
    /// - Throws: `NSMigrationManagerSourceStoreError` (134150) when the source cannot be opened,
    ///   `NSMigrationManagerDestinationStoreError` (134160) for the destination,
    ///   `NSMigrationCancelledError` (134120) when cancelled, `NSEntityMigrationPolicyError` (134170)
    ///   when a policy throws, `NSMigrationError` (134110) otherwise (the same URL for both
    ///   stores, a policy class that cannot be found); validation errors as a save gives them.
    ///   The destination store is removed when the migration fails.
    open func migrateStore(
        from sourceURL: URL, sourceType: String, options sourceOptions: [AnyHashable: Any]? = nil, with mapping: NSMappingModel?,
        toDestinationURL destinationURL: URL, destinationType: String, destinationOptions: [AnyHashable: Any]? = nil
    ) throws {
        guard let mapping else {
            throw CoreDataError.make(NSMigrationError, "No mapping model was given for the migration.", userInfo: ["reason": "Missing mapping model"])
        }
        guard sourceURL.standardizedFileURL != destinationURL.standardizedFileURL else {
            throw CoreDataError.make(
                NSMigrationError, "A mapping-model migration writes a new store; the destination must differ from the source (\(sourceURL.path)).",
                userInfo: ["reason": "Source and destination are the same store", "sourceURL": sourceURL])
        }
        // A store type whose files can be copied, and which migrates in place when opened (the
        // SQLite store), migrates a copy of the store in SQL.
        if mapping.isInferred, usesStoreSpecificMigrationManager, sourceType == destinationType,
            NSPersistentStoreCoordinator.registeredTypes.withLock({ $0[sourceType] }) is any StoreFileOperations.Type
        {
            try migrateInPlace(from: sourceURL, to: destinationURL, type: sourceType, options: destinationOptions)
            return
        }
        let existed = FileManager.default.fileExists(atPath: destinationURL.path)
        let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        var readOnly = sourceOptions ?? [:]
        readOnly[NSReadOnlyPersistentStoreOption] = true
        readOnly[NSMigratePersistentStoresAutomaticallyOption] = false
        let sourceStore: NSPersistentStore
        do {
            sourceStore = try sourceCoordinator.addPersistentStore(ofType: sourceType, configurationName: nil, at: sourceURL, options: readOnly)
        } catch {
            throw CoreDataError.make(
                NSMigrationManagerSourceStoreError, "The source store at \(sourceURL.path) could not be opened.",
                userInfo: [NSUnderlyingErrorKey: error as NSError, "sourceURL": sourceURL])
        }
        defer { try? sourceCoordinator.remove(sourceStore) }
        let destinationStore: NSPersistentStore
        do {
            destinationStore = try destinationCoordinator.addPersistentStore(
                ofType: destinationType, configurationName: nil, at: destinationURL, options: destinationOptions)
        } catch {
            throw CoreDataError.make(
                NSMigrationManagerDestinationStoreError, "The destination store at \(destinationURL.path) could not be opened.",
                userInfo: [NSUnderlyingErrorKey: error as NSError, "destinationURL": destinationURL])
        }
        do {
            try run(mapping, from: sourceCoordinator, to: destinationCoordinator)
            try destinationCoordinator.remove(destinationStore)
        } catch {
            try? destinationCoordinator.remove(destinationStore)
            if !existed { Self.discardStore(at: destinationURL, type: destinationType) }
            throw Self.holdingStores(error, [sourceStore, destinationStore])
        }
    }

    /// `error`, with the migration's stores under `NSAffectedStoresErrorKey`: a validation
    /// error names objects of the destination store, and an object outliving its store could
    /// not even describe itself.
    private static func holdingStores(_ error: any Error, _ stores: [NSPersistentStore]) -> any Error {
        let error = error as NSError
        guard error.domain == NSCocoaErrorDomain, error.userInfo[NSAffectedStoresErrorKey] == nil else { return error }
        var userInfo = error.userInfo
        userInfo[NSAffectedStoresErrorKey] = stores
        return NSError(domain: error.domain, code: error.code, userInfo: userInfo)
    }

    /// The three passes over every entity mapping, then the destination's save.
    ///
    /// Instances are read, made and related `instancesPerBatch` at a time: once a batch's worth
    /// are done, the destination is saved (without validation: relationships come in the second
    /// pass) and both contexts let go of the objects nothing else holds, so that memory stays
    /// bounded however large the store; the whole new store is then validated a batch at a time
    /// before the migration ends. A migration of fewer instances is done in memory and saved once.
    private func run(_ mapping: NSMappingModel, from source: NSPersistentStoreCoordinator, to destination: NSPersistentStoreCoordinator) throws {
        let sourceContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        sourceContext.persistentStoreCoordinator = source
        let destinationContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        destinationContext.persistentStoreCoordinator = destination
        destinationContext.undoManager = nil
        self.mappingModel = mapping
        self.sourceContext = sourceContext
        self.destinationContext = destinationContext
        associations = MigrationAssociations(sourceContext: sourceContext, destinationContext: destinationContext)
        batches = MigrationBatches(size: instancesPerBatch)
        cancellation = nil
        migrationProgress = 0
        let mappings = mapping.entityMappings ?? []
        let progress = Progress(totalUnitCount: Int64(max(1, mappings.count * 3)))
        self.progress = progress
        defer {
            self.mappingModel = nil
            self.sourceContext = nil
            self.destinationContext = nil
            self.currentEntityMapping = nil
            self.progress = nil
            associations = nil
        }
        let policies = try mappings.map(policy(for:))
        /// One pass: `body` for each entity mapping with its policy, then a unit of progress.
        let started = Date()
        var passNumber = 0
        func pass(_ body: (NSEntityMapping, NSEntityMigrationPolicy) throws -> Void) throws {
            passNumber += 1
            for (entityMapping, policy) in zip(mappings, policies) {
                currentEntityMapping = entityMapping
                log.step("pass \(passNumber) of 3: entity mapping \(entityMapping.name ?? "?") (\(entityMapping.mappingType), policy \(type(of: policy)))")
                try body(entityMapping, policy)
                progress.completedUnitCount += 1
                migrationProgress = Float(progress.fractionCompleted)
            }
        }
        try pass { entityMapping, policy in
            try callPolicy { try policy.begin(entityMapping, with: self) }
            if entityMapping.mappingType != .addEntityMappingType, entityMapping.mappingType != .removeEntityMappingType {
                try forEachSourceInstance(of: entityMapping) { instance in
                    try checkCancellation()
                    try callPolicy { try policy.createDestinationInstances(forSource: instance, in: entityMapping, manager: self) }
                }
            }
            try callPolicy { try policy.endInstanceCreation(forMapping: entityMapping, manager: self) }
        }
        try pass { entityMapping, policy in
            try forEachDestinationInstance(of: entityMapping) { instance in
                try checkCancellation()
                try callPolicy { try policy.createRelationships(forDestination: instance, in: entityMapping, manager: self) }
            }
            try callPolicy { try policy.endRelationshipCreation(forMapping: entityMapping, manager: self) }
        }
        try pass { entityMapping, policy in
            try checkCancellation()
            try callPolicy { try policy.performCustomValidation(forMapping: entityMapping, manager: self) }
            try callPolicy { try policy.end(entityMapping, manager: self) }
        }
        try checkCancellation()
        if batches.savedAny {
            try saveBatch()
            try validateDestinationStore()
        } else {
            try destinationContext.save()
        }
        log.completed("migration with a mapping model", seconds: Date().timeIntervalSince(started))
    }

    /// Copies the store and migrates the copy in place, in SQL.
    private func migrateInPlace(from sourceURL: URL, to destinationURL: URL, type: String, options: [AnyHashable: Any]?) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        coordinator.migrationLog = log
        try coordinator.replacePersistentStore(
            at: destinationURL, destinationOptions: options, withPersistentStoreFrom: sourceURL, sourceOptions: nil, ofType: type)
        var migrating = options ?? [:]
        migrating[NSMigratePersistentStoresAutomaticallyOption] = true
        migrating[NSInferMappingModelAutomaticallyOption] = true
        migrating[StagedMigrationRunner.sourceModelsOption] = [sourceModel]
        do {
            let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: destinationURL, options: migrating)
            try coordinator.remove(store)
        } catch {
            Self.discardStore(at: destinationURL, type: type)
            throw CoreDataError.make(
                NSMigrationError, "Cannot migrate store in-place: \((error as NSError).localizedDescription)",
                userInfo: [
                    "reason": "Cannot migrate store in-place: \((error as NSError).localizedDescription)", NSUnderlyingErrorKey: error as NSError,
                    "sourceURL": sourceURL, "destinationURL": destinationURL,
                ])
        }
    }

    /// Deletes the files of a destination store a failed migration made.
    private static func discardStore(at url: URL, type: String) {
        (NSPersistentStoreCoordinator.registeredTypes.withLock { $0[type] } as? any StoreFileOperations.Type)?.discardStoreFiles(at: url)
    }

    /// The policy an entity mapping names, or the default one.
    private func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty else { return NSEntityMigrationPolicy() }
        guard let type = NSEntityMigrationPolicy.policyClass(named: name) else {
            throw CoreDataError.make(
                NSMigrationError,
                "The migration policy class \(name) of entity mapping \(mapping.name ?? "?") was not found; register it with NSEntityMigrationPolicy.register(_:forClassName:).",
                userInfo: ["reason": "Migration policy class not found", "entityMapping": mapping])
        }
        return type.init()
    }

    /// Runs a policy's method; an error other than Core Data's own becomes 134170.
    func callPolicy(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw CoreDataError.make(
                NSEntityMigrationPolicyError, "A migration policy failed: \(error)",
                userInfo: [NSUnderlyingErrorKey: error as NSError, "entityMapping": currentEntityMapping as Any])
        }
    }

    func checkCancellation() throws {
        if progress?.isCancelled == true, cancellation == nil {
            cancellation = CoreDataError.make(NSUserCancelledError, "The migration's progress was cancelled.")
        }
        guard let cancellation else { return }
        throw CoreDataError.make(NSMigrationCancelledError, "The migration was cancelled.", userInfo: [NSUnderlyingErrorKey: cancellation as NSError])
    }

    // MARK: What policies and expressions call

    /// Stops the migration running: it fails with `NSMigrationCancelledError` (134120), `error`
    /// as its underlying error, at the next instance.
    ///
    /// - Parameter error: Why.
    open func cancelMigrationWithError(_ error: any Error) { cancellation = error }

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`, for
    /// the relationship pass and the expressions that look instances up.
    ///
    /// - Parameters:
    ///   - sourceInstance: An instance of the source store.
    ///   - destinationInstance: An instance created in `destinationContext`.
    ///   - entityMapping: The mapping that made it.
    open func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject, for entityMapping: NSEntityMapping) {
        associations?.add(source: sourceInstance, destination: destinationInstance, mapping: entityMapping.name ?? "")
    }

    /// The destination instances that mapping `mappingName` made from `sourceInstances` (all it
    /// made when nil), in the order they were made.
    ///
    /// - Parameters:
    ///   - mappingName: An entity mapping's name.
    ///   - sourceInstances: Source instances, or nil.
    /// - Returns: The destination instances.
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let associations else { return [] }
        guard let sourceInstances else { return associations.destinations(ofMapping: mappingName) }
        return sourceInstances.flatMap { associations.destinations(of: $0, mapping: mappingName) }
    }

    /// The source instances that mapping `mappingName` made `destinationInstances` from (all
    /// when nil).
    ///
    /// - Parameters:
    ///   - mappingName: An entity mapping's name.
    ///   - destinationInstances: Destination instances, or nil.
    /// - Returns: The source instances.
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let associations else { return [] }
        guard let destinationInstances else { return associations.sources(ofMapping: mappingName) }
        return destinationInstances.flatMap { associations.sources(of: $0, mapping: mappingName) }
    }

    /// A fetch of the source entity `entityName`'s own instances matching `predicateString`.
    func fetchRequest(forSourceEntityNamed entityName: String, predicateString: String) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        request.includesSubentities = false
        if predicateString != "TRUEPREDICATE" { request.predicate = try? NSPredicate(validatingFormat: predicateString) }
        return request
    }

    /// The destination instances of the objects `sourceInstances` relates to through relationship
    /// `name`, each found through the mapping of its own source entity.
    func destinationInstances(forSourceRelationshipNamed name: String, sourceInstances: [NSManagedObject]) -> [NSManagedObject] {
        let mappings = mappingModel?.entityMappings ?? []
        return sourceInstances.flatMap { instance -> [NSManagedObject] in
            guard let mapping = mappings.first(where: { $0.sourceEntityName == instance.entity.name }), let mappingName = mapping.name else { return [] }
            return associations?.destinations(of: instance, mapping: mappingName) ?? []
        }
    }

    /// An expression's value with `$manager`, `$source`, `$entityMapping`, `$propertyMapping` and
    /// `$entityPolicy` bound.
    func evaluate(
        _ expression: NSExpression, source: NSManagedObject?, mapping: NSEntityMapping, property: NSPropertyMapping?, policy: NSEntityMigrationPolicy
    ) -> Any? {
        var variables = bindings(mapping: mapping)
        if let source { variables["source"] = source }
        if let property { variables["propertyMapping"] = property }
        variables["entityPolicy"] = policy
        return PredicateEvaluator.value(of: expression, object: source, bindings: variables)
    }

    func bindings(mapping: NSEntityMapping) -> [String: Any] {
        ["manager": self, "entityMapping": mapping]
    }
}

extension NSMigrationManager: ExpressionMessageReceiver, KeyValueReadable {
    func answer(_ selector: String, _ arguments: [Any?]) -> Any?? {
        func instances(_ value: Any?) -> [NSManagedObject] {
            if let object = value as? NSManagedObject { return [object] }
            return value.flatMap(ValueComparison.collectionElements)?.compactMap { $0 as? NSManagedObject } ?? []
        }
        switch selector {
        case "fetchRequestForSourceEntityNamed:predicateString:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return .some(nil) }
            return .some(fetchRequest(forSourceEntityNamed: name, predicateString: arguments[1] as? String ?? "TRUEPREDICATE"))
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return .some(nil) }
            return .some(destinationInstances(forEntityMappingName: name, sourceInstances: instances(arguments[1])))
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return .some(nil) }
            return .some(sourceInstances(forEntityMappingName: name, destinationInstances: instances(arguments[1])))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return .some(nil) }
            return .some(destinationInstances(forSourceRelationshipNamed: name, sourceInstances: instances(arguments[1])))
        default:
            return nil
        }
    }

    func readValue(forKey key: String) -> Any? {
        switch key {
        case "sourceContext": sourceContext
        case "destinationContext": destinationContext
        case "sourceModel": sourceModel
        case "destinationModel": destinationModel
        case "mappingModel": mappingModel
        case "currentEntityMapping": currentEntityMapping
        case "userInfo": userInfo
        case "migrationProgress": NSNumber(value: migrationProgress)
        default: nil
        }
    }
}
