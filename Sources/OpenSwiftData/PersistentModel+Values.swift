import OpenCoreData

// What the accessors `@_PersistedProperty` writes call: a persisted property's value, from the
// model before it is inserted and from its managed object after, with Observation told of the
// read or the change. The overloads for models and arrays of models (relationships) are more
// specific than the one for any value (attributes), so the compiler picks them from the
// property's type.

extension _ModelBacking {
    /// Sets a property's initial value, from an initializer of the model's class.
    ///
    /// - Parameters:
    ///   - index: The property's place among the model's persisted properties.
    ///   - count: How many persisted properties the model has.
    ///   - key: The property's name.
    ///   - value: The initial value.
    public mutating func _initialize<Value>(index: Int, of count: Int, key: String, to value: Value) {
        switch self {
        case .detached: setDetached(.other(value), at: index, of: count)
        case .unattached(let object):
            if case .direct = ValueCoding.strategy(for: Value.self) {
                object._setManagedValue(value, slot: index, key: key)
            } else {
                object._setManagedValue(ValueCoding.storedValue(value), slot: index, key: key)
            }
        // A fetched model starts with its managed object, whose values these are not.
        case .managed: return
        }
    }

    /// Sets the initial value of a property of a type Core Data holds as it is.
    ///
    /// - Parameters:
    ///   - index: The property's place among the model's persisted properties.
    ///   - count: How many persisted properties the model has.
    ///   - key: The property's name.
    ///   - value: The initial value.
    @inlinable public mutating func _initialize<Value: _PersistedLeaf>(index: Int, of count: Int, key: String, to value: Value) {
        switch self {
        case .detached: setDetached(.leaf(value), at: index, of: count)
        case .unattached(let object): Value._write(value, object, index, key)
        // Dropped before it is boxed: a fetched model's values are its row's (`ModelMaterialization`).
        case .managed: return
        }
    }
}

extension PersistentModel {
    /// The value of an attribute, the read told to Observation.
    ///
    /// - Parameters:
    ///   - index: The property's place among the entity's properties (a hint; checked by name).
    ///   - key: The property's name.
    ///   - keyPath: The property, for Observation; made only when the read can be observed.
    /// - Returns: The value.
    public func _persistedValue<Value>(index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Value>) -> Value {
        _ModelObservationRegistrar().access(self, keyPath: keyPath())
        switch persistentBackingData {
        case .detached(let values): return values.value(at: index, key: key)
        case .managed(let object), .unattached(let object):
            if case .direct = ValueCoding.strategy(for: Value.self) { return object._managedValue(slot: index, key: key, as: Value.self) }
            let stored = object._managedValue(slot: index, key: key, as: Any?.self)
            if let value = ValueCoding.value(stored, as: Value.self) { return value }
            if let none = (Value.self as? any OptionalType.Type)?.noneValue as? Value { return none }
            preconditionFailure("The stored value of '\(key)' of \(Self.self) is not a \(Value.self): \(String(describing: stored)).")
        }
    }

    /// Sets an attribute, the change told to Observation.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - index: The property's place among the entity's properties.
    ///   - key: The property's name.
    ///   - keyPath: The property, for Observation; made only when the model can have observers.
    public func _setPersistedValue<Value>(_ value: Value, index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Value>) {
        _ModelObservationRegistrar().withMutation(of: self, keyPath: keyPath()) {
            switch persistentBackingData {
            case .detached: persistentBackingData.setDetached(.other(value), at: index)
            case .managed(let object), .unattached(let object):
                if case .direct = ValueCoding.strategy(for: Value.self) {
                    object._setManagedValue(value, slot: index, key: key)
                } else {
                    object._setManagedValue(ValueCoding.storedValue(value), slot: index, key: key)
                }
                object.noteChange()
            }
        }
    }

    /// The value of an attribute of a type Core Data holds as it is: read from the managed
    /// object's slot by its typed accessor, with nothing decided at run time, and told to
    /// Observation. The managed object is borrowed from the backing, which holds it while the
    /// model lives and which a read never changes: taking it as a value retained and released it,
    /// two atomic operations a read.
    ///
    /// - Parameters:
    ///   - index: The property's place among the entity's properties (a hint; checked by name).
    ///   - key: The property's name.
    ///   - keyPath: The property, for Observation; made only when the read can be observed.
    /// - Returns: The value.
    @inlinable public func _persistedValue<Value: _PersistedLeaf>(
        index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Value>
    ) -> Value {
        guard let object = persistentBackingData._heldObject else {
            _ModelObservationRegistrar().access(self, keyPath: keyPath())
            return persistentBackingData._detachedValue(at: index, key: key)
        }
        return object._withUnsafeGuaranteedRef { object in
            _ModelObservationRegistrar.access(self, through: object, keyPath: keyPath())
            return Value._read(object, index, key)
        }
    }

    /// Sets an attribute of a type Core Data holds as it is, through the typed accessor, the
    /// change told to Observation; the backing looked at once for both, as in the read above.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - index: The property's place among the entity's properties.
    ///   - key: The property's name.
    ///   - keyPath: The property, for Observation; made only when the model can have observers.
    @inlinable public func _setPersistedValue<Value: _PersistedLeaf>(
        _ value: Value, index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Value>
    ) {
        switch persistentBackingData {
        case .detached:
            _ModelObservationRegistrar().withMutation(of: self, keyPath: keyPath()) {
                persistentBackingData.setDetached(.leaf(value), at: index)
            }
        case .managed(let object), .unattached(let object):
            _ModelObservationRegistrar.withMutation(of: self, through: object, keyPath: keyPath()) {
                Value._write(value, object, index, key)
                object.noteChange()
            }
        }
    }

    /// The model an optional to-one relationship leads to, the read told to Observation.
    ///
    /// - Parameters:
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the read can be observed.
    /// - Returns: The related model, nil for none.
    public func _persistedValue<Related: PersistentModel>(
        index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Related?>
    ) -> Related? {
        _ModelObservationRegistrar().access(self, keyPath: keyPath())
        return relatedModel(index: index, key: key)
    }

    /// The model a to-one relationship leads to, nil for none.
    private func relatedModel<Related: PersistentModel>(index: Int, key: String) -> Related? {
        switch persistentBackingData {
        case .detached(let values): return values.value(at: index)?.value as? Related
        case .managed(let object), .unattached(let object):
            return object._managedValue(slot: index, key: key, as: ModelManagedObject?.self)?.model(as: Related.self)
        }
    }

    /// The model a required to-one relationship leads to, the read told to Observation.
    ///
    /// - Parameters:
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the read can be observed.
    /// - Returns: The related model.
    public func _persistedValue<Related: PersistentModel>(
        index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Related>
    ) -> Related {
        _ModelObservationRegistrar().access(self, keyPath: keyPath())
        guard let related: Related = relatedModel(index: index, key: key) else {
            preconditionFailure("The required relationship '\(key)' of \(Self.self) has no model.")
        }
        return related
    }

    /// The models a to-many relationship leads to, in no particular order (as in SwiftData), the
    /// read told to Observation.
    ///
    /// - Parameters:
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the read can be observed.
    /// - Returns: The related models.
    public func _persistedValue<Related: PersistentModel>(
        index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, [Related]>
    ) -> [Related] {
        _ModelObservationRegistrar().access(self, keyPath: keyPath())
        return relatedModels(index: index, key: key) ?? []
    }

    /// The models a to-many relationship declared as an optional array leads to (models written
    /// for CloudKit declare every relationship optional), the read told to Observation: before the
    /// insert, what was set (nil included); after, the related models, as Core Data keeps a
    /// to-many relationship (never nil).
    ///
    /// - Parameters:
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the read can be observed.
    /// - Returns: The related models, or nil before the insert when nil was set.
    public func _persistedValue<Related: PersistentModel>(
        index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, [Related]?>
    ) -> [Related]? {
        _ModelObservationRegistrar().access(self, keyPath: keyPath())
        return relatedModels(index: index, key: key)
    }

    /// The models a to-many relationship leads to; nil for a model not yet inserted that holds
    /// none (or nil) for it.
    private func relatedModels<Related: PersistentModel>(index: Int, key: String) -> [Related]? {
        switch persistentBackingData {
        // An optional array set to nil is kept as an `Optional` in `Any`: the cast gives nil.
        case .detached(let values): return values.value(at: index)?.value as? [Related]
        case .managed(let object), .unattached(let object):
            let related = object._managedValue(slot: index, key: key, as: Set<NSManagedObject>.self)
            return related.compactMap { ($0 as? ModelManagedObject)?.model(as: Related.self) }
        }
    }

    /// Sets an optional to-one relationship, the change told to Observation; a model not yet in a
    /// context joins this model's.
    ///
    /// - Parameters:
    ///   - value: The related model, or nil.
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the model can have observers.
    public func _setPersistedValue<Related: PersistentModel>(
        _ value: Related?, index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Related?>
    ) {
        _ModelObservationRegistrar().withMutation(of: self, keyPath: keyPath()) { setRelated(value, index: index, key: key) }
    }

    /// Sets a to-one relationship to `value`, nil for none.
    private func setRelated<Related: PersistentModel>(_ value: Related?, index: Int, key: String) {
        switch persistentBackingData {
        case .detached: persistentBackingData.setDetached(.other(value as Any), at: index)
        // Never unattached: a class with relationships starts detached (`ModelInsertPlan.startsUnattached`).
        case .managed(let object), .unattached(let object):
            let related = value.flatMap { (object.managedObjectContext as? ModelObjectContext)?.managedObject(inserting: $0) }
            object._setManagedValue(related as NSManagedObject?, slot: index, key: key)
            object.noteChange()
        }
    }

    /// Sets a required to-one relationship, the change told to Observation.
    ///
    /// - Parameters:
    ///   - value: The related model.
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the model can have observers.
    public func _setPersistedValue<Related: PersistentModel>(
        _ value: Related, index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, Related>
    ) {
        _ModelObservationRegistrar().withMutation(of: self, keyPath: keyPath()) { setRelated(Optional(value), index: index, key: key) }
    }

    /// Sets a to-many relationship, the change told to Observation; models not yet in a context
    /// join this model's.
    ///
    /// - Parameters:
    ///   - value: The related models.
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the model can have observers.
    public func _setPersistedValue<Related: PersistentModel>(
        _ value: [Related], index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, [Related]>
    ) {
        _ModelObservationRegistrar().withMutation(of: self, keyPath: keyPath()) { setRelatedModels(value, index: index, key: key) }
    }

    /// Sets a to-many relationship declared as an optional array, the change told to
    /// Observation; nil empties it once the model is in a context (Core Data keeps no nil
    /// to-many relationship).
    ///
    /// - Parameters:
    ///   - value: The related models, or nil.
    ///   - index: The property's place among the entity's properties.
    ///   - key: The relationship's name.
    ///   - keyPath: The property, for Observation; made only when the model can have observers.
    public func _setPersistedValue<Related: PersistentModel>(
        _ value: [Related]?, index: Int, key: String, observing keyPath: @autoclosure () -> KeyPath<Self, [Related]?>
    ) {
        _ModelObservationRegistrar().withMutation(of: self, keyPath: keyPath()) { setRelatedModels(value, index: index, key: key) }
    }

    /// Sets a to-many relationship to `value`; models not yet in a context join this model's.
    private func setRelatedModels<Related: PersistentModel>(_ value: [Related]?, index: Int, key: String) {
        switch persistentBackingData {
        // Kept until the insert copies it (`ModelObjectContext`): the array itself, or nil.
        case .detached: persistentBackingData.setDetached(.other(value.map { $0 as Any } ?? (value as Any)), at: index)
        // Never unattached, as above.
        case .managed(let object), .unattached(let object):
            let context = object.managedObjectContext as? ModelObjectContext
            let related = Set((value ?? []).compactMap { context?.managedObject(inserting: $0) as NSManagedObject? })
            object._setManagedValue(related, slot: index, key: key)
            object.noteChange()
        }
    }
}

extension DetachedValues {
    /// The value set for the property at `index`, which every initializer sets (the compiler
    /// sees to it).
    @usableFromInline func value<Value>(at index: Int, key: String) -> Value {
        if let value = value(at: index)?.value as? Value { return value }
        if let none = (Value.self as? any OptionalType.Type)?.noneValue as? Value { return none }
        preconditionFailure("The property '\(key)' was read before it was set.")
    }
}
