import CSwiftRetain

/// Makes the models for fetched objects without filling detached storage first.
///
/// `init(backingData:)` cannot skip the class's initial values: Swift runs every property's
/// initial value before an initializer's body, and each stores itself in the model's backing,
/// which is still the storage a new model starts with (detached storage, an allocation filled
/// and thrown away for each fetched model). While `make` runs, the backing a model of the
/// expected class starts with is already its managed object, told through a thread-local
/// (`ocd_pending_model_slot`), so the initial values are dropped as they come.
enum ModelMaterialization {
    /// A model of `type` standing for `object`; the model's storage starts as `object`
    /// (`_ModelBacking.detached(for:)` takes it).
    ///
    /// - Parameters:
    ///   - type: The model's class.
    ///   - object: The managed object it stands for.
    /// - Returns: The model.
    static func make<Model: PersistentModel>(_ type: Model.Type, standingFor object: ModelManagedObject) -> Model {
        let slot = ocd_pending_model_slot()
        // Restored after: an initial value of the class's could itself make a model.
        let outer = slot.pointee
        slot.pointee = ocd_pending_model(object: Unmanaged.passUnretained(object).toOpaque(), type: address(of: type))
        defer { slot.pointee = outer }
        // No backing is passed (each would cost a retain and a release of `object`): the
        // initial value of `persistentBackingData` takes it from the slot.
        let model = Model(_materializing: _ModelMaterializing())
        if slot.pointee.object != nil {
            // Not taken: a class whose backing starts otherwise than `@Model` writes it.
            slot.pointee.object = nil
            model.persistentBackingData = .managed(object)
        }
        return model
    }

    /// The managed object a model of `type` under construction on this thread stands for,
    /// taken once; nil outside `make`.
    static func take(for type: Any.Type) -> ModelManagedObject? {
        let slot = ocd_pending_model_slot()
        // `make`'s caller holds the object until `make` returns.
        guard let object = slot.pointee.object, slot.pointee.type == address(of: type) else { return nil }
        slot.pointee.object = nil
        return Unmanaged<ModelManagedObject>.fromOpaque(object).takeUnretainedValue()
    }

    /// The metadata of `type`, as the slot keeps it.
    private static func address(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }
}
