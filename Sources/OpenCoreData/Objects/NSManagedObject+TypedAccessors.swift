/// The accessors `@NSManaged` properties of the common types call: they read and write the
/// object's slot directly, without the key lookup and the conversion through `Any` (an `NSNumber`
/// for every number) that KVC costs. Any value they do not expect in the slot (a model whose type
/// differs from the declaration, a transformable value) takes the general path, so they return
/// what `value(forKey:)` would, converted as `_managedValue(slot:key:as:)` converts it.
extension NSManagedObject {
    // MARK: Finding the slot

    /// The slot of property `key`: `hint` when the entity's property in that slot has that name
    /// (the generator's expectation, read from the model at build time), else looked up.
    @inline(__always)
    func managedSlot(_ hint: Int, _ key: String) -> Int {
        if let slot = entity.layout?.objectTemplate.slot(hint: hint, key: key) { return slot }
        return slotIndex(of: requireProperty(key))
    }

    /// The slot of `key`, for a read: the queue checked, the access announced and the fault filled.
    @inline(__always)
    func accessedSlot<Value>(_ hint: Int, _ key: String, as type: Value.Type) -> Int {
        checkQueue("value(forKey: \"\(key)\")")
        let slot = managedSlot(hint, key)
        if let recorder = keyPathRecorder { recorder.record(key, of: self, types: [Value.self, Value?.self]) }
        willAccessValue(forKey: key)
        fireFault()
        didAccessValue(forKey: key)
        return slot
    }

    func property(atSlot slot: Int) -> NSPropertyDescription {
        entity.layout?.properties[slot] ?? entity.properties[slot]
    }

    /// Sets `key` to a value as KVC takes it, past the key lookup.
    func setManagedObjectValue(_ value: Any?, _ hint: Int, _ key: String) {
        checkQueue("setValue(_:forKey: \"\(key)\")")
        setValue(value, for: property(atSlot: managedSlot(hint, key)), key: key)
    }

    /// Sets attribute `key` to `value`, already converted, when the attribute is settable and its
    /// type one `accepts`; else sets `fallback()` the way KVC does (which converts or refuses it).
    @inline(__always)
    func setManagedAttribute(
        _ value: SlotValue, _ hint: Int, _ key: String, accepts: (NSAttributeType) -> Bool, fallback: () -> Any?
    ) {
        if let slot = settableSlot(hint, key, accepts: accepts) {
            checkQueue("setValue(_:forKey: \"\(key)\")")
            willChangeValue(forKey: key)
            fireFault()
            setAttributeSlot(value, slot: slot) { unsafeDowncast(property(atSlot: slot), to: NSAttributeDescription.self) }
            didChangeValue(forKey: key)
            return
        }
        setManagedObjectValue(fallback(), hint, key)
    }

    /// Sets attribute `key` of exactly type `type` to `value`; see the general form above.
    @inline(__always)
    func setManagedAttribute(_ value: SlotValue, _ hint: Int, _ key: String, ofType type: NSAttributeType, fallback: () -> Any?) {
        setManagedAttribute(value, hint, key, accepts: { $0 == type }, fallback: fallback)
    }

    /// The slot of `key` when it is a settable attribute whose type `accepts` takes. Reads the
    /// layout without keeping it past the return, so that no retain and release of it surround
    /// the calls that follow (they cost more than the rest of a set).
    @inline(__always)
    private func settableSlot(_ hint: Int, _ key: String, accepts: (NSAttributeType) -> Bool) -> Int? {
        guard let layout = entity.layout else { return nil }
        let template = Unmanaged.passUnretained(layout)
        return template._withUnsafeGuaranteedRef { layout in
            guard let slot = layout.objectTemplate.slot(hint: hint, key: key) ?? layout.objectTemplate.scannedSlot(of: key),
                let attributeType = layout.objectTemplate.settableTypes[slot], accepts(attributeType)
            else { return nil }
            return slot
        }
    }

    /// The general read, for a slot holding something the typed accessor did not expect.
    func managedFallback<Value>(_ slot: Int, as type: Value.Type = Value.self) -> Value {
        ManagedValueConversion.value(publicValue(of: property(atSlot: slot)), as: type)
    }

    /// Reads `key` as `Value`: `match` takes the slot's value when it holds the expected case;
    /// a nil value reads as `null` (nil for an optional, zero or false for a scalar; none given:
    /// the general conversion decides); anything else takes the general path.
    @inline(__always)
    private func typedValue<Value>(
        _ hint: Int, _ key: String, as type: Value.Type, null: Value?, _ match: (SlotValue) -> Value?
    ) -> Value {
        let slot = accessedSlot(hint, key, as: type)
        let value = slots[slot]
        if let matched = match(value) { return matched }
        if case .null = value, let null { return null }
        return managedFallback(slot)
    }

    // MARK: Strings, dates, data, identifiers

    public func _managedValue(slot hint: Int, key: String, as type: (String?).Type = (String?).self) -> String? {
        typedValue(hint, key, as: type, null: .some(nil)) { if case .string(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: String?, slot hint: Int, key: String) {
        setManagedAttribute(newValue.map(SlotValue.string) ?? .null, hint, key, ofType: .stringAttributeType) { newValue }
    }

    /// A non-optional `String` (hand-written classes declare them): Core Data's accessor would
    /// hand such a property nil, and so stops the program for a nil value.
    public func _managedValue(slot hint: Int, key: String, as type: String.Type = String.self) -> String {
        typedValue(hint, key, as: type, null: nil) { if case .string(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: String, slot hint: Int, key: String) {
        setManagedAttribute(.string(newValue), hint, key, ofType: .stringAttributeType) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: Date.Type = Date.self) -> Date {
        typedValue(hint, key, as: type, null: nil) { if case .date(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: Date, slot hint: Int, key: String) {
        setManagedAttribute(.date(newValue), hint, key, ofType: .dateAttributeType) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: (Date?).Type = (Date?).self) -> Date? {
        typedValue(hint, key, as: type, null: .some(nil)) { if case .date(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: Date?, slot hint: Int, key: String) {
        setManagedAttribute(newValue.map(SlotValue.date) ?? .null, hint, key, ofType: .dateAttributeType) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: (Data?).Type = (Data?).self) -> Data? {
        typedValue(hint, key, as: type, null: .some(nil)) { if case .data(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: Data?, slot hint: Int, key: String) {
        setManagedAttribute(newValue.map(SlotValue.data) ?? .null, hint, key, ofType: .binaryDataAttributeType) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: (UUID?).Type = (UUID?).self) -> UUID? {
        typedValue(hint, key, as: type, null: .some(nil)) { if case .uuid(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: UUID?, slot hint: Int, key: String) {
        setManagedAttribute(newValue.map(SlotValue.uuid) ?? .null, hint, key, ofType: .UUIDAttributeType) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: (URL?).Type = (URL?).self) -> URL? {
        typedValue(hint, key, as: type, null: .some(nil)) { if case .url(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: URL?, slot hint: Int, key: String) {
        setManagedAttribute(newValue.map(SlotValue.url) ?? .null, hint, key, ofType: .URIAttributeType) { newValue }
    }

    // MARK: Scalars (`usesScalarValueType`): nil reads as zero or false

    public func _managedValue(slot hint: Int, key: String, as type: Int64.Type = Int64.self) -> Int64 {
        typedValue(hint, key, as: type, null: 0) { if case .int(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: Int64, slot hint: Int, key: String) {
        setManagedInteger(newValue, hint, key) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: Int32.Type = Int32.self) -> Int32 {
        typedValue(hint, key, as: type, null: 0) { if case .int(let value) = $0 { Int32(truncatingIfNeeded: value) } else { nil } }
    }

    public func _setManagedValue(_ newValue: Int32, slot hint: Int, key: String) {
        setManagedInteger(Int64(newValue), hint, key) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: Int16.Type = Int16.self) -> Int16 {
        typedValue(hint, key, as: type, null: 0) { if case .int(let value) = $0 { Int16(truncatingIfNeeded: value) } else { nil } }
    }

    public func _setManagedValue(_ newValue: Int16, slot hint: Int, key: String) {
        setManagedInteger(Int64(newValue), hint, key) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: Int.Type = Int.self) -> Int {
        typedValue(hint, key, as: type, null: 0) { if case .int(let value) = $0 { Int(truncatingIfNeeded: value) } else { nil } }
    }

    public func _setManagedValue(_ newValue: Int, slot hint: Int, key: String) {
        setManagedInteger(Int64(newValue), hint, key) { newValue }
    }

    private func setManagedInteger(_ value: Int64, _ hint: Int, _ key: String, fallback: () -> Any?) {
        // Any integer attribute takes an integer; the store checks the range when it saves.
        setManagedAttribute(.int(value), hint, key, accepts: {
            $0 == .integer64AttributeType || $0 == .integer32AttributeType || $0 == .integer16AttributeType
        }, fallback: fallback)
    }

    public func _managedValue(slot hint: Int, key: String, as type: Bool.Type = Bool.self) -> Bool {
        typedValue(hint, key, as: type, null: false) {
            switch $0 {
            case .int(let value): value != 0
            case .bool(let value): value
            default: nil
            }
        }
    }

    public func _setManagedValue(_ newValue: Bool, slot hint: Int, key: String) {
        setManagedAttribute(.int(newValue ? 1 : 0), hint, key, ofType: .booleanAttributeType) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: Double.Type = Double.self) -> Double {
        typedValue(hint, key, as: type, null: 0) { if case .double(let value) = $0 { value } else { nil } }
    }

    public func _setManagedValue(_ newValue: Double, slot hint: Int, key: String) {
        setManagedAttribute(.double(newValue), hint, key, ofType: .doubleAttributeType) { newValue }
    }

    public func _managedValue(slot hint: Int, key: String, as type: Float.Type = Float.self) -> Float {
        typedValue(hint, key, as: type, null: 0) { if case .double(let value) = $0 { Float(value) } else { nil } }
    }

    public func _setManagedValue(_ newValue: Float, slot hint: Int, key: String) {
        // A float attribute keeps the value rounded to Float, as the KVC path stores it.
        setManagedAttribute(.double(Double(newValue)), hint, key, ofType: .floatAttributeType) { newValue }
    }

    // MARK: To-one relationships

    public func _managedValue<Destination: NSManagedObject>(
        slot hint: Int, key: String, as type: Destination?.Type = Destination?.self
    ) -> Destination? {
        let slot = accessedSlot(hint, key, as: type)
        guard let relationship = property(atSlot: slot) as? NSRelationshipDescription, !relationship.isToMany else {
            return managedFallback(slot)
        }
        if let probe = keyPathRecorder?.destinationProbe(of: relationship) { return probe as? Destination }
        return toOneValue(relationship) as? Destination
    }
}
