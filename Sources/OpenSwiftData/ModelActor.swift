import Dispatch
import Foundation

/// What runs a model actor's work: owns the actor's `ModelContext` and the queue it is used on.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the actor works in.
    var modelContext: ModelContext { get }
}

/// A model executor that is also the actor's serial executor.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor `@ModelActor` gives an actor: one serial queue, one context used only on it.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // @unchecked Sendable: the context is used only by jobs this executor runs, one at a time.
    public let modelContext: ModelContext
    private let queue = DispatchQueue(label: "OpenSwiftData.DefaultSerialModelExecutor")

    /// An executor for `modelContext`.
    ///
    /// - Parameter modelContext: The context the actor works in.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// An actor that works with models in a context of its own, on its own executor (what
/// `@ModelActor` makes of an actor): models stay inside it; identifiers cross.
public protocol ModelActor: Actor {
    /// The container the actor's context belongs to.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor running the actor, holding its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The actor runs on its model executor, so that its context is used on one queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialModelExecutor else {
            preconditionFailure("\(Self.self)'s model executor is not a serial executor.")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The model `id` names, from the actor's context (read from the store if not held), or nil
    /// when it is not a `T` or no longer stored.
    ///
    /// - Parameters:
    ///   - id: A model's identifier, from any context.
    ///   - as: The model class.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        modelContext.existingModel(for: id)
    }
}

extension ModelContext {
    /// The model `persistentModelID` names, read from the store if this context does not hold
    /// it; nil when it is not a `T` or its row is gone.
    func existingModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let objectID = persistentModelID.objectID(in: container.coordinator),
            let object = try? objectContext.existingObject(with: objectID) as? ModelManagedObject,
            SchemaDerivation.entityName(of: T.self) == object.entity.name
        else { return nil }
        return object.model(as: T.self)
    }
}
