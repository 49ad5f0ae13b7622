import CSwiftRetain

/// Makes the model for a managed object that has none (a fetch's results, a relationship's
/// destination, a batch) without filling detached storage first.
///
/// Swift runs every property's initial value before an initializer's body, and each stores
/// itself in the model's backing, which is still the storage a new model starts with (detached
/// storage, an allocation filled and thrown away for each model). While `make` runs, the backing
/// a model of the expected class starts with is already its managed object, told through a
/// thread-local (`ocd_pending_model_slot`), so the initial values are dropped as they come. The
/// model is made by `init(_materializing:)`, which `@Model` writes without the backing
/// parameter of `init(backingData:)`: passing the object in cost a retain and a release of it.
enum ModelMaterialization {
    /// A model of `type` standing for `object`; the model's storage starts as `object`
    /// (`_ModelBacking.detached(for:)` takes it).
    ///
    /// - Parameters:
    ///   - type: The model's class.
    ///   - object: The managed object it stands for.
    /// - Returns: The model, and whether it was made by the initializer `@Model` writes, which
    ///   hands the model to no one: only then may its counts be changed without atomic steps.
    static func make<Model: PersistentModel>(_ type: Model.Type, standingFor object: ModelManagedObject) -> (model: Model, isUnshared: Bool) {
        let slot = ocd_pending_model_slot()
        // Restored after: an initial value of the class's could itself make a model.
        let outer = slot.pointee
        slot.pointee = ocd_pending_model(object: Unmanaged.passUnretained(object).toOpaque(), type: address(of: type))
        defer { slot.pointee = outer }
        let model = Model(_materializing: _ModelMaterializing())
        // Taken by the backing's initial value of `@Model`'s initializer: nothing to check (a
        // look at the backing would cost a retain and a release).
        if slot.pointee.type != nil, slot.pointee.object == nil { return (model, true) }
        // A class written without `@Model` (its default `init(_materializing:)` clears the
        // type, `disown()`), or the object taken by a model of the same class that an initial
        // value made first (`take` clears the type): the backing is set here.
        if model.persistentBackingData._heldObject?.toOpaque() != Unmanaged.passUnretained(object).toOpaque() {
            model.persistentBackingData = .managed(object)
        }
        return (model, false)
    }

    /// Stops the model under construction on this thread from taking the pending object, and
    /// marks it as made by an initializer other than `@Model`'s (which may hand it to others).
    static func disown() {
        ocd_pending_model_slot().pointee.type = nil
    }

    /// The managed object a model of `type` under construction on this thread stands for,
    /// taken once; nil outside `make`.
    static func take(for type: Any.Type) -> ModelManagedObject? {
        let slot = ocd_pending_model_slot()
        guard slot.pointee.type == address(of: type) else { return nil }
        guard let object = slot.pointee.object else {
            // Taken already, by a model of the same class an initial value made: the model
            // `make` is making gets its backing from `make`.
            slot.pointee.type = nil
            return nil
        }
        slot.pointee.object = nil
        // `make`'s caller holds the object until `make` returns.
        return Unmanaged<ModelManagedObject>.fromOpaque(object).takeUnretainedValue()
    }

    /// The metadata of `type`, as the slot keeps it.
    private static func address(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }
}
