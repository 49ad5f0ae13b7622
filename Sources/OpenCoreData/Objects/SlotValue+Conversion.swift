/// Conversions between the values users pass (`Any`, as Core Data's KVC takes them) and slots.
extension SlotValue {
    // Foundation's Boolean numbers, made once: `NSNumber(value:)` goes through CoreFoundation
    // on every call (about a microsecond), though it hands back the same two objects.
    private static let yes = NSNumber(value: true)
    private static let no = NSNumber(value: false)

    /// The value as Core Data hands it out: numbers as `NSNumber` (so `as? Int`, `as? Int16` and
    /// `as? Bool` all work, as with Apple's bridging), strings, dates, data, UUIDs, URLs as Swift values.
    package func publicValue(for attribute: NSAttributeDescription?) -> Any? {
        switch self {
        case .unloaded, .null: return nil
        case .int(let v):
            if attribute?.attributeType == .booleanAttributeType { return v != 0 ? Self.yes : Self.no }
            return NSNumber(value: v)
        case .bool(let v): return v ? Self.yes : Self.no
        case .double(let v):
            if attribute?.attributeType == .floatAttributeType { return NSNumber(value: Float(v)) }
            return NSNumber(value: v)
        case .string(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v)
        case .url(let v): return v
        case .object(let box), .invalid(let box): return box.value
        case .reference, .toOne, .toMany, .objectID, .objectIDs: return nil
        }
    }

    /// Converts a value set through KVC to the slot for `attribute`, or `.invalid` when its type does
    /// not fit (refused at save with `NSManagedObjectValidationError`).
    package init(attributeValue value: borrowing Any?, for attribute: borrowing NSAttributeDescription) {
        // The value of the attribute's own type first, read in place: testing `is NSNull` first
        // would, for a String, try bridging it to a Foundation object on every set, and the
        // runtime's cast costs more than the rest of a set.
        let type = attribute.attributeType
        switch ExistentialPayload.withPayload(of: value, { SlotValue.exact(type, $0, $1) }) {
        case .none:
            self = .null
            return
        case .some(.some(let slot)):
            self = slot
            return
        case .some(.none):
            break
        }
        let value = (copy value)!
        if value is NSNull {
            self = .null
            return
        }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if let n = SlotValue.integer(from: value) {
                self = .int(n)
            } else {
                self = .invalid(AnyBox(value))
            }
        case .booleanAttributeType:
            if let b = value as? Bool {
                self = .int(b ? 1 : 0)
            } else if let n = SlotValue.integer(from: value) {
                self = .int(n != 0 ? 1 : 0)
            } else {
                self = .invalid(AnyBox(value))
            }
        case .doubleAttributeType, .floatAttributeType:
            if let d = SlotValue.double(from: value) {
                self = .double(attribute.attributeType == .floatAttributeType ? Double(Float(d)) : d)
            } else {
                self = .invalid(AnyBox(value))
            }
        case .decimalAttributeType:
            if let d = value as? Decimal {
                self = .decimal(d)
            } else if let n = value as? NSDecimalNumber {
                self = .decimal(n.decimalValue)
            } else if let d = SlotValue.double(from: value) {
                self = .decimal(Decimal(d))
            } else {
                self = .invalid(AnyBox(value))
            }
        case .stringAttributeType:
            if let s = value as? String { self = .string(s) } else { self = .invalid(AnyBox(value)) }
        case .dateAttributeType:
            if let d = value as? Date { self = .date(d) } else { self = .invalid(AnyBox(value)) }
        case .binaryDataAttributeType:
            if let d = value as? Data { self = .data(d) } else { self = .invalid(AnyBox(value)) }
        case .UUIDAttributeType:
            if let u = value as? UUID { self = .uuid(u) } else { self = .invalid(AnyBox(value)) }
        case .URIAttributeType:
            if let u = value as? URL { self = .url(u) } else { self = .invalid(AnyBox(value)) }
        case .compositeAttributeType:
            if let composite = (copy attribute) as? NSCompositeAttributeDescription {
                self = CompositeValue.slot(value, for: composite)
            } else {
                self = .invalid(AnyBox(value))
            }
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType:
            self = .object(AnyBox(value))
        }
    }

    /// The slot for a value whose dynamic type is exactly the attribute's own Swift type; nil for
    /// any other (an `NSNumber`, a wider integer), which the general conversion handles.
    @inline(__always)
    private static func exact(_ type: NSAttributeType, _ dynamicType: Any.Type, _ payload: UnsafeRawPointer) -> SlotValue? {
        switch type {
        case .stringAttributeType:
            if dynamicType == String.self { return .string(payload.load(as: String.self)) }
        case .dateAttributeType:
            if dynamicType == Date.self { return .date(payload.load(as: Date.self)) }
        case .booleanAttributeType:
            if dynamicType == Bool.self { return .int(payload.load(as: Bool.self) ? 1 : 0) }
        case .integer64AttributeType, .integer32AttributeType, .integer16AttributeType:
            // Exact types only: an NSNumber goes through the general path's own rules. The sized
            // integers an `@NSManaged` property declares as well: the general path's cast would
            // bridge each to an `NSNumber` first (an allocation a value set).
            if dynamicType == Int.self { return .int(Int64(payload.load(as: Int.self))) }
            if dynamicType == Int64.self { return .int(payload.load(as: Int64.self)) }
            if dynamicType == Int32.self { return .int(Int64(payload.load(as: Int32.self))) }
            if dynamicType == Int16.self { return .int(Int64(payload.load(as: Int16.self))) }
        case .doubleAttributeType:
            if dynamicType == Double.self { return .double(payload.load(as: Double.self)) }
        default:
            break
        }
        return nil
    }

    /// Any integer, Boolean or `NSNumber` as Int64; a floating value only when it is whole.
    private static func integer(from value: Any) -> Int64? {
        switch ValueComparison.normalize(value) {
        case let v as Int64: return v
        case let v as Double where v.rounded() == v: return Int64(exactly: v)
        default: return nil
        }
    }

    private static func double(from value: Any) -> Double? {
        switch ValueComparison.normalize(value) {
        case let v as Int64: return Double(v)
        case let v as Double: return v
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }

    /// Whether two attribute slots hold the same value (used to tell real changes from no-ops).
    func sameValue(as other: SlotValue) -> Bool {
        switch (self, other) {
        case (.null, .null), (.unloaded, .unloaded): return true
        case (.int(let a), .int(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        // Code unit by code unit, as `NSString`'s `isEqual:` and SQLite compare: Swift's `==`
        // calls canonically equivalent strings equal ("é" composed and decomposed), and a
        // change between them would not be saved.
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.url(let a), .url(let b)): return a == b
        case (.reference(let a), .reference(let b)): return a == b
        case (.toOne(let a), .toOne(let b)): return a === b
        case (.object(let a), .object(let b)):
            if a === b { return true }
            if let left = a.value as? [String: Any], let right = b.value as? [String: Any] { return CompositeValue.isEqual(left, right) }
            return (a.value as? NSObject)?.isEqual(b.value) == true
        default: return false
        }
    }
}
