import Foundation
import OpenCoreData

/// Where models are inserted, changed, deleted and fetched, and saved to the container's stores
/// together. Not `Sendable`: a context belongs to the actor (or thread) that made it; pass
/// `PersistentIdentifier`s between actors and look the models up in the other one's context.
public final class ModelContext {
    /// The container whose stores the context saves to.
    public let container: ModelContainer
    /// Whether the context saves by itself: the main context at the next turn of the main actor
    /// after a change, any context before it is released (true for `mainContext`).
    public var autosaveEnabled = false
    /// Where the context stands between a change and the save autosave makes of it.
    private var autosave = AutosaveState.idle
    /// Set for `mainContext`, the one context autosave saves at the main actor's next turn.
    var isMainContext = false

    private enum AutosaveState {
        /// No change since the last save, or none scheduled.
        case idle
        /// A save is scheduled on the main actor.
        case scheduled
    }
    /// The Core Data context holding the models' managed objects.
    let objectContext: ModelObjectContext

    /// A context of `container`.
    ///
    /// - Parameter container: The container to work in.
    public init(_ container: ModelContainer) {
        self.container = container
        objectContext = ModelObjectContext(concurrencyType: .confinementConcurrencyType)
        objectContext.persistentStoreCoordinator = container.coordinator
        // A model whose unique attributes match a stored row's updates that row: SwiftData's upsert.
        objectContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        objectContext.owner = self
    }

    // MARK: Changes

    /// Inserts `model` (and the new models it refers to); it is saved with the next `save()`.
    /// Inserting a model already in the context does nothing.
    ///
    /// - Parameter model: The model.
    public func insert<T: PersistentModel>(_ model: T) {
        _ = objectContext.managedObject(inserting: model)
        noteChange()
    }

    /// Deletes `model` at the next save, applying its relationships' delete rules.
    ///
    /// - Parameter model: The model.
    public func delete<T: PersistentModel>(_ model: T) {
        guard let object = model.persistentBackingData.managedObject, object.managedObjectContext === objectContext else { return }
        objectContext.delete(object)
        noteChange()
    }

    /// Deletes every model of `model` that `predicate` accepts, at the next save.
    ///
    /// - Parameters:
    ///   - model: The model class.
    ///   - predicate: Which models; nil for all.
    ///   - includeSubclasses: Whether models of subclasses count too.
    /// - Throws: `SwiftDataError.unsupportedPredicate` for a predicate that cannot run.
    /// - Complexity: O(n) in the models deleted.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        let request = try FetchTranslation.request(FetchDescriptor(predicate: predicate), coordinator: container.coordinator)
        request.includesSubentities = includeSubclasses
        for object in try objectContext.fetch(request) { objectContext.delete(object) }
    }

    /// Whether there are changes not yet saved.
    public var hasChanges: Bool { objectContext.hasChanges }

    /// Writes every change to the stores in one transaction. Models whose unique attributes match
    /// stored rows update those rows.
    ///
    /// - Throws: Core Data's validation and store errors; nothing is written then.
    public func save() throws {
        guard objectContext.hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSave, object: self)
        try objectContext.save()
        // The save's objects, as its own notification names them; none when it wrote nothing.
        let saved = objectContext.takeSavedIdentifiers()
        NotificationCenter.default.post(
            name: Self.didSave, object: self,
            userInfo: [
                NotificationKey.insertedIdentifiers.rawValue: saved.inserted,
                NotificationKey.updatedIdentifiers.rawValue: saved.updated,
                NotificationKey.deletedIdentifiers.rawValue: saved.deleted,
            ])
    }

    /// Schedules the main context's autosave after a change: one save at the main actor's next
    /// turn, however many changes come before it.
    func noteChange() {
        guard autosaveEnabled, isMainContext, case .idle = autosave else { return }
        autosave = .scheduled
        let context = MainContextReference(self)
        Task { @MainActor in context.saveScheduled() }
    }

    fileprivate func runScheduledAutosave() {
        autosave = .idle
        guard autosaveEnabled, hasChanges else { return }
        // An autosave that fails leaves the changes for the app's own save, which reports it.
        try? save()
    }

    deinit {
        if autosaveEnabled, objectContext.hasChanges { try? objectContext.save() }
    }

    /// Throws away every change since the last save.
    public func rollback() {
        objectContext.rollback()
    }

    /// Runs `block`, then saves what it changed.
    ///
    /// - Parameter block: The changes.
    /// - Throws: What `block` or the save throws.
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    /// The models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { objectContext.insertedObjects.compactMap(Self.model(of:)) }
    /// The models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { objectContext.updatedObjects.compactMap(Self.model(of:)) }
    /// The models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { objectContext.deletedObjects.compactMap(Self.model(of:)) }

    private static func model(of object: NSManagedObject) -> (any PersistentModel)? {
        (object as? ModelManagedObject)?.anyModel()
    }

    // MARK: Fetching

    /// The models `descriptor` describes, in its order.
    ///
    /// - Parameter descriptor: What to fetch.
    /// - Returns: The models; the same model object for a row each time while it is held.
    /// - Throws: `SwiftDataError.unsupportedPredicate` or `.unsupportedSortDescriptor` for a
    ///   descriptor that cannot run; store errors.
    /// - Complexity: O(n) in the models returned, after the store's query.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let objects = try objectContext.fetch(FetchTranslation.request(descriptor, coordinator: container.coordinator))
        return Array(unsafeUninitializedCapacity: objects.count) { models, count in
            objects.withUnsafeBufferPointer { objects in
                // Read as addresses and borrowed from the array, which holds them: iterating the
                // objects themselves retains and releases each (two atomic steps a model).
                let addresses = UnsafeRawBufferPointer(objects)
                for offset in stride(from: 0, to: addresses.count, by: MemoryLayout<NSManagedObject>.stride) {
                    let address = addresses.load(fromByteOffset: offset, as: UnsafeRawPointer.self)
                    Unmanaged<NSManagedObject>.fromOpaque(address)._withUnsafeGuaranteedRef { object in
                        guard type(of: object) == ModelManagedObject.self else { return }
                        let model = unsafeDowncast(object, to: ModelManagedObject.self).model(as: T.self)
                        (models.baseAddress.unsafelyUnwrapped + count).initialize(to: model)
                        count += 1
                    }
                }
            }
        }
    }

    /// How many models `descriptor` describes, counted by the store.
    ///
    /// - Parameter descriptor: What to count.
    /// - Returns: The count.
    /// - Throws: As `fetch(_:)`.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try objectContext.count(for: FetchTranslation.request(descriptor, coordinator: container.coordinator))
    }

    /// The identifiers of the models `descriptor` describes, without making the models.
    ///
    /// - Parameter descriptor: What to fetch.
    /// - Returns: The identifiers, in the descriptor's order.
    /// - Throws: As `fetch(_:)`.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let request = try FetchTranslation.request(descriptor, coordinator: container.coordinator)
        request.includesPropertyValues = false
        return try objectContext.fetch(request).map { PersistentIdentifier($0.objectID) }
    }

    /// The model `persistentModelID` names, from this context (read from the store when first
    /// used).
    ///
    /// - Parameter persistentModelID: A model's identifier.
    /// - Returns: The model.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        guard let objectID = persistentModelID.objectID(in: container.coordinator),
            let model = (objectContext.object(with: objectID) as? ModelManagedObject)?.anyModel()
        else { preconditionFailure("\(persistentModelID) names no model of this container's schema.") }
        return model
    }

    /// The model `persistentModelID` names, if this context holds it already.
    ///
    /// - Parameter persistentModelID: A model's identifier.
    /// - Returns: The model, or nil.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let objectID = persistentModelID.objectID(in: container.coordinator),
            let object = objectContext.registeredObject(for: objectID) as? ModelManagedObject
        else { return nil }
        return object.model(as: T.self)
    }
}

extension ModelContext {
    /// Posted before a context saves; the object is the context.
    public static let willSave = Notification.Name("OpenSwiftData.ModelContext.willSave")
    /// Posted after a context saved; the user info lists the identifiers of what changed.
    public static let didSave = Notification.Name("OpenSwiftData.ModelContext.didSave")

    /// The keys of `didSave`'s user info.
    public enum NotificationKey: String, Sendable {
        case queryGeneration
        case invalidatedIdentifiers
        case insertedIdentifiers
        case updatedIdentifiers
        case deletedIdentifiers
    }
}

/// The main context, handed to the main actor's task that autosaves it.
private struct MainContextReference: @unchecked Sendable {
    // @unchecked Sendable: `mainContext` is made and used on the main actor only; the task
    // that carries it runs there too.
    weak var context: ModelContext?

    init(_ context: ModelContext) { self.context = context }

    @MainActor func saveScheduled() { context?.runScheduledAutosave() }
}
