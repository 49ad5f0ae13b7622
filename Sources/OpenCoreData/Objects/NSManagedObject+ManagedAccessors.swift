/// What the accessors of `@NSManaged` declarations call. Linux has no Objective-C runtime to
/// supply them, so the ManagedObjectCodegen build plugin writes each one, under the symbol the
/// compiler expects (`SwiftMangler`), as a call to these. Not meant to be called by hand.
extension NSManagedObject {
    /// The value of property `key` as the declared type: an optional is nil for a nil value, a
    /// scalar (`Int64`, `Bool`, `Double`…) zero or false, as Core Data's scalar accessors return.
    /// The common types have overloads of their own that read the slot without converting
    /// through `Any` (`NSManagedObject+TypedAccessors.swift`).
    ///
    /// - Parameters:
    ///   - slot: Where the generator expects the property: its index in the entity's properties,
    ///     or -1. Checked against `key`, so that a model changed since the build stays correct.
    ///   - key: The property's name.
    ///   - type: The property's declared type.
    /// - Returns: The value, converted.
    public func _managedValue<Value>(slot: Int, key: String, as type: Value.Type = Value.self) -> Value {
        let slot = accessedSlot(slot, key, as: type)
        let property = property(atSlot: slot)
        if let relationship = property as? NSRelationshipDescription, let probe = keyPathRecorder?.destinationProbe(of: relationship) {
            return ManagedValueConversion.value(probe, as: type)
        }
        return ManagedValueConversion.value(publicValue(of: property), as: type)
    }

    /// Sets property `key` to `newValue` (nil for an optional that is nil).
    ///
    /// - Parameters:
    ///   - newValue: The new value, of the property's declared type.
    ///   - slot: Where the generator expects the property, or -1 (see `_managedValue`).
    ///   - key: The property's name.
    public func _setManagedValue<Value>(_ newValue: Value, slot: Int, key: String) {
        setManagedObjectValue(ManagedValueConversion.object(newValue), slot, key)
    }

    /// The primitive value of property `key`, for `@NSManaged var primitiveName` declarations.
    ///
    /// - Parameters:
    ///   - slot: Where the generator expects the property, or -1 (see `_managedValue`).
    ///   - key: The property's name (without the `primitive` prefix).
    ///   - type: The declared type.
    /// - Returns: The value, converted as `_managedValue(slot:key:as:)` converts it.
    public func _managedPrimitiveValue<Value>(slot: Int, key: String, as type: Value.Type = Value.self) -> Value {
        checkQueue("primitiveValue(forKey: \"\(key)\")")
        return ManagedValueConversion.value(publicValue(of: property(atSlot: managedSlot(slot, key))), as: type)
    }

    /// Sets the primitive value of property `key`.
    ///
    /// - Parameters:
    ///   - newValue: The new value.
    ///   - slot: Where the generator expects the property, or -1 (see `_managedValue`).
    ///   - key: The property's name (without the `primitive` prefix).
    public func _setManagedPrimitiveValue<Value>(_ newValue: Value, slot: Int, key: String) {
        setPrimitiveValue(ManagedValueConversion.object(newValue), forKey: key)
    }

    /// Adds `objects` (one object, an `NSSet`, an `NSOrderedSet` or an array) to the to-many
    /// relationship `key`: the generated `addToX(_:)`.
    ///
    /// - Parameters:
    ///   - objects: What to add.
    ///   - key: The relationship's name.
    public func _addManagedObjects(_ objects: Any, toKey key: String) {
        // One object at a time through the relationship set's primitive methods: Foundation's
        // collection-wide methods may work on their own storage instead.
        let added = ManagedValueConversion.objects(objects)
        if entity.relationshipsByName[key]?.isOrdered == true {
            let set = mutableOrderedSetValue(forKey: key)
            for object in added { set.add(object) }
        } else {
            let set = mutableSetValue(forKey: key)
            for object in added { set.add(object) }
        }
    }

    /// Removes `objects` from the to-many relationship `key`: the generated `removeFromX(_:)`.
    ///
    /// - Parameters:
    ///   - objects: What to remove.
    ///   - key: The relationship's name.
    public func _removeManagedObjects(_ objects: Any, fromKey key: String) {
        let removed = ManagedValueConversion.objects(objects)
        if entity.relationshipsByName[key]?.isOrdered == true {
            let set = mutableOrderedSetValue(forKey: key)
            for object in removed {
                let index = set.index(of: object)
                if index != NSNotFound { set.removeObject(at: index) }
            }
        } else {
            let set = mutableSetValue(forKey: key)
            for object in removed { set.remove(object) }
        }
    }

    /// Inserts `objects` into the ordered to-many relationship `key` at `index`: the generated
    /// `insertIntoX(_:at:)` for one object.
    ///
    /// - Parameters:
    ///   - objects: What to insert.
    ///   - index: Where.
    ///   - key: The relationship's name.
    public func _insertManagedObjects(_ objects: Any, at index: Int, intoKey key: String) {
        _insertManagedObjects(objects, at: NSIndexSet(index: index), intoKey: key)
    }

    /// Inserts `objects` into the ordered to-many relationship `key` at `indexes`.
    ///
    /// - Parameters:
    ///   - objects: What to insert, one per index.
    ///   - indexes: Where.
    ///   - key: The relationship's name.
    public func _insertManagedObjects(_ objects: Any, at indexes: NSIndexSet, intoKey key: String) {
        let set = mutableOrderedSetValue(forKey: key)
        for (object, index) in zip(ManagedValueConversion.objects(objects), indexes as IndexSet) { set.insert(object, at: index) }
    }

    /// Removes the objects at `index` of the ordered to-many relationship `key`: the generated
    /// `removeFromX(at:)`.
    ///
    /// - Parameters:
    ///   - index: Which object.
    ///   - key: The relationship's name.
    public func _removeManagedObjects(at index: Int, fromKey key: String) {
        mutableOrderedSetValue(forKey: key).removeObject(at: index)
    }

    /// Removes the objects at `indexes` of the ordered to-many relationship `key`.
    ///
    /// - Parameters:
    ///   - indexes: Which objects.
    ///   - key: The relationship's name.
    public func _removeManagedObjects(at indexes: NSIndexSet, fromKey key: String) {
        let set = mutableOrderedSetValue(forKey: key)
        for index in (indexes as IndexSet).reversed() where index < set.count { set.removeObject(at: index) }
    }

    /// Replaces the object at `index` of the ordered to-many relationship `key`: the generated
    /// `replaceX(at:with:)`.
    ///
    /// - Parameters:
    ///   - index: Which object.
    ///   - objects: Its replacement.
    ///   - key: The relationship's name.
    public func _replaceManagedObjects(at index: Int, with objects: Any, inKey key: String) {
        _replaceManagedObjects(at: NSIndexSet(index: index), with: objects, inKey: key)
    }

    /// Replaces the objects at `indexes` of the ordered to-many relationship `key`.
    ///
    /// - Parameters:
    ///   - indexes: Which objects.
    ///   - objects: Their replacements, one per index.
    ///   - key: The relationship's name.
    public func _replaceManagedObjects(at indexes: NSIndexSet, with objects: Any, inKey key: String) {
        let set = mutableOrderedSetValue(forKey: key)
        for (index, object) in zip(indexes as IndexSet, ManagedValueConversion.objects(objects)) where index < set.count {
            set.replaceObject(at: index, with: object)
        }
    }
}

/// Conversions between the values KVC hands out and the Swift types properties are declared with.
enum ManagedValueConversion {
    static func value<Value>(_ raw: Any?, as type: Value.Type) -> Value {
        if let raw, !(raw is NSNull) {
            if let value = raw as? Value { return value }
            if let scalar = Value.self as? any ManagedScalar.Type, let number = raw as? NSNumber {
                return scalar.init(managedNumber: number) as! Value
            }
            if let wrapped = Value.self as? any ManagedOptional.Type, let value = wrapped.wrapping(raw) {
                return value as! Value
            }
        }
        if let wrapped = Value.self as? any ManagedOptional.Type { return wrapped.managedNone as! Value }
        if let scalar = Value.self as? any ManagedScalar.Type { return scalar.managedZero as! Value }
        // A probe reading a key path (`\Item.createdAt` in a sort descriptor) has no values: a
        // non-optional property answers with a stand-in, as Apple never calls the getter there.
        if KeyPathRecorder.current != nil, let placeholder = placeholder(as: type) { return placeholder }
        preconditionFailure("A managed property of type \(Value.self) has no value, or one of another type: \(String(describing: raw)).")
    }

    /// A value of `type` for a probe to hand out: empty, zero or the reference date; nil for a
    /// type without an obvious one.
    static func placeholder<Value>(as type: Value.Type) -> Value? {
        switch Value.self {
        case is String.Type: return "" as? Value
        case is Date.Type: return Date(timeIntervalSinceReferenceDate: 0) as? Value
        case is Data.Type: return Data() as? Value
        case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? Value
        case is URL.Type: return URL(fileURLWithPath: "/") as? Value
        case is NSDecimalNumber.Type: return NSDecimalNumber.zero as? Value
        case is NSNumber.Type: return NSNumber(value: 0) as? Value
        case is NSOrderedSet.Type: return NSOrderedSet() as? Value
        case is NSSet.Type: return NSSet() as? Value
        default: return (Value.self as? any ManagedEmptyCollection.Type)?.managedEmpty as? Value
        }
    }

    /// What KVC is given for a value of a declared type: nil for an optional that is nil.
    static func object<Value>(_ value: Value) -> Any? {
        if let optional = value as? any ManagedOptional { return optional.wrappedValue }
        return value
    }

    static func objects(_ value: Any) -> [Any] {
        switch value {
        case let set as NSSet: set.allObjects
        case let ordered as NSOrderedSet: ordered.array
        case let array as [Any]: array
        case let set as Set<AnyHashable>: set.map(\.base)
        default: [value]
        }
    }
}

/// Optionals, for converting to `T?` without knowing `T`.
protocol ManagedOptional {
    static var managedNone: Self { get }
    static var wrappedType: Any.Type { get }
    static func wrapping(_ value: Any) -> Self?
    var wrappedValue: Any? { get }
}

extension Optional: ManagedOptional {
    static var managedNone: Optional { nil }
    static var wrappedType: Any.Type { Wrapped.self }
    static func wrapping(_ value: Any) -> Optional? {
        if let wrapped = value as? Wrapped { return .some(wrapped) }
        if let scalar = Wrapped.self as? any ManagedScalar.Type, let number = value as? NSNumber {
            let converted = scalar.init(managedNumber: number) as! Wrapped
            return .some(converted)
        }
        return nil
    }
    var wrappedValue: Any? { self.map { $0 as Any } }
}

/// The scalar types Xcode declares numeric and Boolean attributes with (`usesScalarValueType`).
protocol ManagedScalar {
    init(managedNumber: NSNumber)
    static var managedZero: Self { get }
}

extension ManagedScalar where Self: FixedWidthInteger {
    init(managedNumber: NSNumber) { self.init(truncatingIfNeeded: managedNumber.int64Value) }
    static var managedZero: Self { 0 }
}

extension Int: ManagedScalar {}
extension Int16: ManagedScalar {}
extension Int32: ManagedScalar {}
extension Int64: ManagedScalar {}
extension Bool: ManagedScalar {
    init(managedNumber: NSNumber) { self = managedNumber.boolValue }
    static var managedZero: Bool { false }
}
extension Double: ManagedScalar {
    init(managedNumber: NSNumber) { self = managedNumber.doubleValue }
    static var managedZero: Double { 0 }
}
extension Float: ManagedScalar {
    init(managedNumber: NSNumber) { self = managedNumber.floatValue }
    static var managedZero: Float { 0 }
}
extension Decimal: ManagedScalar {
    init(managedNumber: NSNumber) { self = managedNumber.decimalValue }
    static var managedZero: Decimal { 0 }
}

/// Collections a non-optional managed property may be declared as (a to-many `Set<Tag>`, a
/// Transformable `[String]`): empty is their stand-in on a probe.
protocol ManagedEmptyCollection {
    static var managedEmpty: Self { get }
}

extension Set: ManagedEmptyCollection { static var managedEmpty: Set { [] } }
extension Array: ManagedEmptyCollection { static var managedEmpty: Array { [] } }
extension Dictionary: ManagedEmptyCollection { static var managedEmpty: Dictionary { [:] } }
