import Foundation
import OpenCoreData

/// A property type Core Data holds as it is (strings, integers, floating point, Booleans, dates,
/// data, identifiers, URLs), read and written through the managed object's typed accessors.
///
/// The accessors `@Model` writes call `_persistedValue(index:key:observing:)`; for a type conforming here
/// the compiler picks the overload that calls these, so a fetched model's property reads its
/// slot with no boxing, casting or per-type lookup (what the general path pays on every access).
public protocol _PersistedLeaf {
    /// The value of property `key` of `object`.
    static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Self
    /// The value of property `key` of `object`, nil when it has none.
    static func _readOptional(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Self?
    /// Sets property `key` of `object`.
    static func _write(_ value: Self, _ object: NSManagedObject, _ slot: Int, _ key: String)
    /// Sets property `key` of `object`, nil for none.
    static func _writeOptional(_ value: Self?, _ object: NSManagedObject, _ slot: Int, _ key: String)
}

extension _PersistedLeaf {
    /// The general conversion, for types whose optional form has no typed accessor (a scalar's
    /// typed accessor reads nil as zero, which an optional must not).
    @inlinable public static func _readOptional(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Self? {
        object._managedValue(slot: slot, key: key, as: Self?.self)
    }

    @inlinable public static func _writeOptional(_ value: Self?, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        if let value { _write(value, object, slot, key) } else { object._setManagedValue(Self?.none, slot: slot, key: key) }
    }

    /// Writes this value as the property's value: for a value known only as `Any` (an insert
    /// copying what the model was given).
    func _writeSelf(to object: NSManagedObject, _ slot: Int, _ key: String) {
        Self._write(self, object, slot, key)
    }
}

/// An optional of a leaf type is a leaf: nil is a null column.
extension Optional: _PersistedLeaf where Wrapped: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Self {
        Wrapped._readOptional(object, slot, key)
    }

    @inlinable public static func _write(_ value: Self, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        Wrapped._writeOptional(value, object, slot, key)
    }
}

/// A required value the row lacks (a store written by other code): stopped with its name, as the
/// general path stops.
@usableFromInline func missing(_ key: String, _ type: Any.Type) -> Never {
    preconditionFailure("The stored value of '\(key)' is not a \(type): it is nil.")
}

extension String: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> String {
        object._managedValue(slot: slot, key: key, as: String.self)
    }

    @inlinable public static func _readOptional(_ object: NSManagedObject, _ slot: Int, _ key: String) -> String? {
        object._managedValue(slot: slot, key: key, as: String?.self)
    }

    @inlinable public static func _write(_ value: String, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }

    @inlinable public static func _writeOptional(_ value: String?, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Date: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Date {
        object._managedValue(slot: slot, key: key, as: Date.self)
    }

    @inlinable public static func _readOptional(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Date? {
        object._managedValue(slot: slot, key: key, as: Date?.self)
    }

    @inlinable public static func _write(_ value: Date, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }

    @inlinable public static func _writeOptional(_ value: Date?, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Data: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Data {
        guard let value = _readOptional(object, slot, key) else { missing(key, Data.self) }
        return value
    }

    @inlinable public static func _readOptional(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Data? {
        object._managedValue(slot: slot, key: key, as: Data?.self)
    }

    @inlinable public static func _write(_ value: Data, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(Optional(value), slot: slot, key: key)
    }

    @inlinable public static func _writeOptional(_ value: Data?, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension UUID: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> UUID {
        guard let value = _readOptional(object, slot, key) else { missing(key, UUID.self) }
        return value
    }

    @inlinable public static func _readOptional(_ object: NSManagedObject, _ slot: Int, _ key: String) -> UUID? {
        object._managedValue(slot: slot, key: key, as: UUID?.self)
    }

    @inlinable public static func _write(_ value: UUID, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(Optional(value), slot: slot, key: key)
    }

    @inlinable public static func _writeOptional(_ value: UUID?, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension URL: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> URL {
        guard let value = _readOptional(object, slot, key) else { missing(key, URL.self) }
        return value
    }

    @inlinable public static func _readOptional(_ object: NSManagedObject, _ slot: Int, _ key: String) -> URL? {
        object._managedValue(slot: slot, key: key, as: URL?.self)
    }

    @inlinable public static func _write(_ value: URL, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(Optional(value), slot: slot, key: key)
    }

    @inlinable public static func _writeOptional(_ value: URL?, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Int: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Int {
        object._managedValue(slot: slot, key: key, as: Int.self)
    }

    @inlinable public static func _write(_ value: Int, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Int64: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Int64 {
        object._managedValue(slot: slot, key: key, as: Int64.self)
    }

    @inlinable public static func _write(_ value: Int64, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Int32: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Int32 {
        object._managedValue(slot: slot, key: key, as: Int32.self)
    }

    @inlinable public static func _write(_ value: Int32, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Int16: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Int16 {
        object._managedValue(slot: slot, key: key, as: Int16.self)
    }

    @inlinable public static func _write(_ value: Int16, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Bool: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Bool {
        object._managedValue(slot: slot, key: key, as: Bool.self)
    }

    @inlinable public static func _write(_ value: Bool, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Double: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Double {
        object._managedValue(slot: slot, key: key, as: Double.self)
    }

    @inlinable public static func _write(_ value: Double, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}

extension Float: _PersistedLeaf {
    @inlinable public static func _read(_ object: NSManagedObject, _ slot: Int, _ key: String) -> Float {
        object._managedValue(slot: slot, key: key, as: Float.self)
    }

    @inlinable public static func _write(_ value: Float, _ object: NSManagedObject, _ slot: Int, _ key: String) {
        object._setManagedValue(value, slot: slot, key: key)
    }
}
