/// Makes the models for fetched objects without filling detached storage first.
///
/// `init(backingData:)` cannot skip the class's initial values: Swift runs every property's
/// initial value before an initializer's body, and each stores itself in the model's backing,
/// which is still the detached storage a new model starts with (an allocation, filled and thrown
/// away, for each fetched model). Within `run`, the backing a model of the expected class starts
/// with is already its managed object, so the initial values are dropped as they come.
enum ModelMaterialization {
    /// The object whose model is being made, and the model's class.
    final class Pending: @unchecked Sendable {
        // @unchecked Sendable: set and read on the one thread that runs `run`'s body.
        var object: ModelManagedObject?
        var type: ObjectIdentifier?
    }

    @TaskLocal static var pending: Pending?

    /// Runs `body`, in which `model(as:)` makes models with their managed object from the start.
    ///
    /// - Parameter body: What makes the models (a fetch's mapping, a to-many's).
    /// - Returns: What `body` returns.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        try $pending.withValue(Pending(), operation: body)
    }

    /// A model of `type` standing for `object`; inside `run`, the model's storage starts as
    /// `object` (`_ModelBacking.detached(for:)` takes it).
    ///
    /// - Parameters:
    ///   - type: The model's class.
    ///   - object: The managed object it stands for.
    /// - Returns: The model.
    static func make<Model: PersistentModel>(_ type: Model.Type, standingFor object: ModelManagedObject) -> Model {
        guard let pending else { return Model(backingData: .managed(object)) }
        pending.object = object
        pending.type = ObjectIdentifier(type)
        // Cleared after, in case a class whose storage does not take it (compiled otherwise) left it.
        defer { (pending.object, pending.type) = (nil, nil) }
        return Model(backingData: .managed(object))
    }

    /// The managed object a model of `type` under construction stands for, taken once.
    static func take(for type: Any.Type) -> ModelManagedObject? {
        guard let pending, pending.type == ObjectIdentifier(type), let object = pending.object else { return nil }
        pending.object = nil
        pending.type = nil
        return object
    }
}
