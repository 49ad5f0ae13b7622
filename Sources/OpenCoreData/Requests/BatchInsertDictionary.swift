/// The `NSMutableDictionary` an `NSBatchInsertRequest` hands its dictionary handler: a complete
/// mutable dictionary to the handler, which keeps the values of the entity's attributes in an
/// array, one place per attribute.
///
/// Linux's `NSMutableDictionary` bridges every key and value to a Foundation object on the way in
/// and back on the way out (17 µs a row of a batch insert), and even a Swift dictionary keyed by
/// `AnyHashable` costs more than the INSERT; here `dictionary["name"] = value` finds the
/// attribute's place by comparing names and stores the value as it is.
final class BatchInsertDictionary: NSMutableDictionary {
    /// The attribute names there is a place for.
    private let names: [String]
    /// Places by name, for entities too large to scan.
    private let places: [String: Int]?
    /// The value of each attribute of `names`, nil where none is set. A buffer rather than an
    /// array property: every access to a class's array property is checked for exclusivity at
    /// run time, several times a row.
    let attributeValues: UnsafeMutablePointer<Any?>
    /// Entries under any other key. Unchecked, as the values are: one thread fills a row at a time.
    @exclusivity(unchecked) private(set) var others: [AnyHashable: Any] = [:]

    init(names: [String]) {
        self.names = names
        places = names.count > ObjectTemplate.scanLimit ? Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a }) : nil
        attributeValues = .allocate(capacity: names.count)
        attributeValues.initialize(repeating: nil, count: names.count)
        super.init(objects: nil, forKeys: nil, count: 0)
    }

    required convenience init(objects: UnsafePointer<AnyObject>!, forKeys keys: UnsafePointer<NSObject>!, count cnt: Int) {
        self.init(names: [])
        for index in 0..<cnt { setObject(objects[index], forKey: AnyHashable(keys[index])) }
    }

    deinit {
        attributeValues.deinitialize(count: names.count)
        attributeValues.deallocate()
    }

    /// How many attributes have a place.
    var attributeCapacity: Int { names.count }

    /// Empties the dictionary for the next row, keeping its storage.
    func reset() {
        for index in 0..<names.count { attributeValues[index] = nil }
        if !others.isEmpty { others.removeAll(keepingCapacity: true) }
    }

    private func place(of key: Any) -> Int? {
        guard let name = key as? String else { return nil }
        if let places { return places[name] }
        return names.firstIndex(of: name)
    }

    private static func hashable(_ key: Any) -> AnyHashable? {
        (key as? String).map(AnyHashable.init) ?? key as? AnyHashable
    }

    override var count: Int { (0..<names.count).count { attributeValues[$0] != nil } + others.count }

    override func object(forKey aKey: Any) -> Any? {
        if let place = place(of: aKey) { return attributeValues[place] }
        return Self.hashable(aKey).flatMap { others[$0] }
    }

    override func keyEnumerator() -> NSEnumerator {
        let keys = names.indices.filter { attributeValues[$0] != nil }.map { names[$0] as Any } + others.keys.map(\.base)
        return KeyEnumerator(keys)
    }

    override func setObject(_ anObject: Any, forKey aKey: AnyHashable) {
        if let place = place(of: aKey.base) {
            attributeValues[place] = anObject
        } else {
            others[Self.hashable(aKey.base) ?? aKey] = anObject
        }
    }

    override func removeObject(forKey aKey: Any) {
        if let place = place(of: aKey) {
            attributeValues[place] = nil
        } else if let key = Self.hashable(aKey) {
            others[key] = nil
        }
    }

    private final class KeyEnumerator: NSEnumerator {
        private var keys: IndexingIterator<[Any]>

        init(_ keys: [Any]) {
            self.keys = keys.makeIterator()
            super.init()
        }

        override func nextObject() -> Any? { keys.next() }
    }
}
