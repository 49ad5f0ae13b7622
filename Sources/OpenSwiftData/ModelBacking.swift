import OpenCoreData

/// Where a model object's persisted values live: in the object itself until it is inserted into
/// a context, then in the managed object that stands for it there. Held inline by every model
/// (`@Model` declares it), so a fetched model costs no storage object of its own.
public enum _ModelBacking {
    /// Not in any context: the values set so far, by property name.
    case detached(DetachedValues)
    /// Not in any context yet, its values already in the managed object it is inserted as: a
    /// model of a class whose entity is known (`SchemaRegistry.unattachedEntity(for:)`) is made
    /// this way, so that its insert moves no value and frees no storage.
    case unattached(ModelManagedObject)
    /// In a context: the managed object that holds the values, and the row once saved.
    case managed(ModelManagedObject)

    /// A new model's empty storage: shared until the first value is set, so that a fetched
    /// model (whose storage is replaced by its managed object at once) allocates none.
    public static func detached() -> _ModelBacking { .detached(DetachedValues.none) }

    /// A new model's storage: for a model a fetch is making (`ModelMaterialization`), its
    /// managed object, so that the class's initial values are not stored; for a class whose
    /// entity is known, an unattached managed object; else detached storage.
    ///
    /// - Parameter type: The model's class.
    /// - Returns: The storage the model starts with.
    public static func detached(for type: any PersistentModel.Type) -> _ModelBacking {
        if let object = ModelMaterialization.take(for: type) { return .managed(object) }
        if let entity = SchemaRegistry.unattachedEntity(for: type) { return .unattached(ModelManagedObject(entity: entity, insertInto: nil)) }
        return .detached(DetachedValues.none)
    }

    /// Sets a detached model's value, giving it storage of its own on the first.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The property's place among the model's persisted properties.
    ///   - count: How many persisted properties the model has, when known (the storage is made
    ///     that size at once); 0 when not.
    @usableFromInline mutating func setDetached(_ value: DetachedValue, at index: Int, of count: Int = 0) {
        guard case .detached(let values) = self, index >= 0 else { return }
        if values === DetachedValues.none {
            let made = DetachedValues(count: max(count, index + 1))
            made.values[index] = value
            self = .detached(made)
        } else {
            values.set(value, at: index)
        }
    }

    /// Gives a detached model that shares the empty storage of models given no value storage of
    /// its own, keeping `registrar` there: observing a model before it holds anything.
    ///
    /// - Parameter registrar: The model's registrar's box.
    /// - Returns: The box kept.
    mutating func ownRegistrarBox(installing registrar: RegistrarBox) -> RegistrarBox {
        let own = DetachedValues(count: 0)
        self = .detached(own)
        return own.observation.box(installing: registrar)
    }

    /// The managed object the model's values are in (inserted or unattached), not retained: it
    /// stays valid while the model's stored backing holds it (`@Model` stores it; a backing
    /// computed afresh on each read would not keep it). Nil before the model has one.
    @inlinable public var _heldObject: Unmanaged<ModelManagedObject>? {
        switch self {
        case .managed(let object), .unattached(let object): Unmanaged.passUnretained(object)
        case .detached: nil
        }
    }

    /// The value of a model without a managed object (`_heldObject` is nil).
    ///
    /// - Parameters:
    ///   - index: The property's place among the model's persisted properties.
    ///   - key: The property's name.
    /// - Returns: The value.
    @usableFromInline func _detachedValue<Value>(at index: Int, key: String) -> Value {
        guard case .detached(let values) = self else { preconditionFailure("The storage of a model changed while '\(key)' was read.") }
        return values.value(at: index, key: key)
    }

    /// The managed object, once the model is in a context.
    var managedObject: ModelManagedObject? {
        guard case .managed(let object) = self else { return nil }
        return object
    }
}

/// The values a model holds before it is inserted into a context, by the place of their
/// property among the model's persisted properties (`@Model` numbers them): no hashing of names
/// for a model that is made, filled and inserted.
public final class DetachedValues {
    // Unchecked exclusivity: a detached model is used on one thread, as every model.
    @exclusivity(unchecked) @usableFromInline var values: [DetachedValue?]
    /// The model's Observation registrar until it is inserted (its managed object's after).
    let observation = ObservationSlot()

    /// The storage of every model given no value yet; never written (`setDetached` replaces it).
    nonisolated(unsafe) static let none = DetachedValues(count: 0)

    init(count: Int) {
        values = Array(repeating: nil, count: count)
    }

    /// Sets the value at `index`, growing the storage when the count was not known.
    func set(_ value: DetachedValue, at index: Int) {
        if index >= values.count { values.append(contentsOf: repeatElement(nil, count: index + 1 - values.count)) }
        values[index] = value
    }

    /// The value at `index`; nil when none was set.
    @usableFromInline func value(at index: Int) -> DetachedValue? {
        index >= 0 && index < values.count ? values[index] : nil
    }
}

/// A value a detached model holds. A value of a leaf type is kept as one, so that the insert
/// writes it through its typed accessor without asking at run time what it is.
@usableFromInline enum DetachedValue {
    case leaf(any _PersistedLeaf)
    case other(Any)

    @usableFromInline var value: Any {
        switch self {
        case .leaf(let leaf): leaf
        case .other(let value): value
        }
    }
}

/// The managed object behind a model object: remembers its model (weakly, since the model holds
/// it), so that a relationship or a fetch hands out the same model while someone holds it.
public final class ModelManagedObject: NSManagedObject {
    /// The model standing for this object, weakly (`ModelOwnerReference`).
    // Unchecked exclusivity, as the object's other state: it is used on its context's queue.
    @exclusivity(unchecked) private var ownerReference = ModelOwnerReference()
    /// The Observation registrar of the model standing for this object: kept here rather than in
    /// the model, which is then two words.
    let observation = ObservationSlot()

    /// The model standing for this object, while it exists.
    var owner: (any PersistentModel)? {
        get { ownerReference.model }
        set { ownerReference.set(newValue) }
    }

    /// A final class that overrides no validation method: a save checks its values against the
    /// model's rules directly, as for `NSManagedObject` itself.
    override public class var _mayOverrideValidateValue: Bool { false }

    /// The model standing for this object, made (as `Model`, without calling the user's
    /// initializer) when there is none.
    func model<Model: PersistentModel>(as type: Model.Type) -> Model {
        if let owner = ownerReference.model(as: Model.self) { return owner }
        let (made, isUnshared) = ModelMaterialization.make(Model.self, standingFor: self)
        ownerReference.set(address: Unmanaged.passUnretained(made).toOpaque(), isUnshared: isUnshared)
        return made
    }

    /// Tells the model's context of a change, for its autosave.
    @usableFromInline func noteChange() {
        (managedObjectContext as? ModelObjectContext)?.owner?.noteChange()
    }

    /// The model standing for this object, of the type its entity's schema names.
    func anyModel() -> (any PersistentModel)? {
        if let owner { return owner }
        guard let type = SchemaRegistry.type(of: entity) else { return nil }
        return model(as: type)
    }
}
