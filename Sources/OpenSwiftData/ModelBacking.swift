import OpenCoreData

/// Where a model object's persisted values live: in the object itself until it is inserted into
/// a context, then in the managed object that stands for it there. Held inline by every model
/// (`@Model` declares it), so a fetched model costs no storage object of its own.
public enum _ModelBacking {
    /// Not in any context: the values set so far, by property name.
    case detached(DetachedValues)
    /// In a context: the managed object that holds the values, and the row once saved.
    case managed(ModelManagedObject)

    /// A new model's empty storage: shared until the first value is set, so that a fetched
    /// model (whose storage is replaced by its managed object at once) allocates none.
    public static func detached() -> _ModelBacking { .detached(DetachedValues.none) }

    /// Sets a detached model's value, giving it storage of its own on the first.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The property's name.
    mutating func setDetached(_ value: DetachedValue, forKey key: String) {
        guard case .detached(let values) = self else { return }
        if values === DetachedValues.none {
            // Room for a typical model's properties at once: growing a dictionary rehashes it.
            var first = [String: DetachedValue](minimumCapacity: 8)
            first[key] = value
            self = .detached(DetachedValues(first))
        } else {
            values.values[key] = value
        }
    }

    /// The managed object, once the model is in a context.
    var managedObject: ModelManagedObject? {
        guard case .managed(let object) = self else { return nil }
        return object
    }
}

/// The values a model holds before it is inserted into a context.
public final class DetachedValues {
    var values: [String: DetachedValue]

    /// The storage of every model given no value yet; never written (`setDetached` replaces it).
    nonisolated(unsafe) static let none = DetachedValues([:])

    init(_ values: [String: DetachedValue]) {
        self.values = values
    }
}

/// A value a detached model holds. A value of a leaf type is kept as one, so that the insert
/// writes it through its typed accessor without asking at run time what it is.
enum DetachedValue {
    case leaf(any _PersistedLeaf)
    case other(Any)

    var value: Any {
        switch self {
        case .leaf(let leaf): leaf
        case .other(let value): value
        }
    }
}

/// The managed object behind a model object: remembers its model (weakly, since the model holds
/// it), so that a relationship or a fetch hands out the same model while someone holds it.
public final class ModelManagedObject: NSManagedObject {
    weak var owner: (any PersistentModel)?

    /// The model standing for this object, made (as `Model`, without calling the user's
    /// initializer) when there is none.
    func model<Model: PersistentModel>(as type: Model.Type) -> Model {
        if let owner = owner as? Model { return owner }
        let made = Model(backingData: .managed(self))
        owner = made
        return made
    }

    /// Tells the model's context of a change, for its autosave.
    func noteChange() {
        (managedObjectContext as? ModelObjectContext)?.owner?.noteChange()
    }

    /// The model standing for this object, of the type its entity's schema names.
    func anyModel() -> (any PersistentModel)? {
        if let owner { return owner }
        guard let type = SchemaRegistry.type(of: entity) else { return nil }
        return model(as: type)
    }
}
