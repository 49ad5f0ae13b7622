/// One row of slot values (an object's values, a committed snapshot, a row a store read): a
/// window into a `SlotStorage` that may hold many rows.
///
/// A fetch reads its rows into a few large storages instead of an array per row, which saved an
/// allocation, a 32-byte array header and the allocator's overhead per fetched object. Writing
/// to a row whose storage is shared copies the row out first, as writing to a shared array would.
package struct SlotRow: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral {
    /// Nil for an empty row, so that an object's empty values cost no storage.
    private var storage: SlotStorage?
    private var start: Int32
    /// 16 bits: the two bytes this leaves in the row's tail padding hold an object's fault state
    /// and flags (`NSManagedObject`), which kept an object to a 112-byte allocation.
    private var length: UInt16

    init() {
        storage = nil
        start = 0
        length = 0
    }

    init(repeating value: SlotValue, count: Int) {
        guard count > 0 else {
            self.init()
            return
        }
        let storage = SlotStorage.make(capacity: count)
        storage.append(repeating: value, count: count)
        self.init(storage: storage, start: 0, count: count)
    }

    init<S: Sequence<SlotValue>>(_ values: S) {
        let values = ContiguousArray(values)
        guard !values.isEmpty else {
            self.init()
            return
        }
        let storage = SlotStorage.make(capacity: values.count)
        values.withUnsafeBufferPointer { storage.append(copying: $0) }
        self.init(storage: storage, start: 0, count: values.count)
    }

    package init(arrayLiteral values: SlotValue...) { self.init(values) }

    fileprivate init(storage: SlotStorage, start: Int, count: Int) {
        precondition(count <= Int(UInt16.max), "An entity has at most 65,535 properties")
        self.storage = storage
        self.start = Int32(start)
        self.length = UInt16(count)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { Int(length) }
    package var count: Int { Int(length) }
    package var isEmpty: Bool { length == 0 }

    package subscript(index: Int) -> SlotValue {
        get {
            precondition(index >= 0 && index < Int(length), "Slot index out of range")
            return storage!.element(at: Int(start) + index)
        }
        set {
            precondition(index >= 0 && index < Int(length), "Slot index out of range")
            makeUnique()
            storage!.setElement(newValue, at: Int(start) + index)
        }
    }

    /// Whether the value at `index` is missing, of the wrong type, or some value, read in place
    /// (no payload copied).
    func presence(at index: Int) -> SlotPresence {
        precondition(index >= 0 && index < Int(length), "Slot index out of range")
        return storage!.withUnsafeMutablePointerToElements { elements in
            switch elements[Int(start) + index] {
            case .null: .null
            case .invalid: .invalid
            default: .value
            }
        }
    }

    /// Gives the row a storage of its own when another row or value shares it.
    private mutating func makeUnique() {
        if isKnownUniquelyReferenced(&storage) { return }
        let copy = SlotStorage.make(capacity: count)
        storage!.copyElements(from: Int(start), count: count, into: copy)
        storage = copy
        start = 0
    }
}

/// What validation needs to know of a slot before looking at its value (`SlotRow.presence(at:)`).
enum SlotPresence {
    case null
    case invalid
    case value
}

/// Rows of slot values, one after another in one allocation. Only `SlotRow` and
/// `SlotRowBuilder` touch it; elements are written once when appended, then only through a row
/// that holds the storage alone.
final class SlotStorage: ManagedBuffer<SlotStorage.Header, SlotValue> {
    struct Header {
        /// Values written so far.
        var written: Int
        /// Room allocated; kept here because `ManagedBuffer.capacity` asks the allocator.
        let capacity: Int
    }

    /// A storage with room for `capacity` values and none written yet.
    static func make(capacity: Int) -> SlotStorage {
        unsafeDowncast(
            SlotStorage.create(minimumCapacity: capacity) { _ in Header(written: 0, capacity: capacity) }, to: SlotStorage.self)
    }

    // Through pointers: the `header` property is checked for exclusive access on every use.
    /// Values written so far.
    var written: Int { withUnsafeMutablePointerToHeader { $0.pointee.written } }
    /// Room for values not yet written.
    var room: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity - $0.pointee.written } }

    @inline(__always)
    func element(at index: Int) -> SlotValue {
        withUnsafeMutablePointerToElements { $0[index] }
    }

    @inline(__always)
    func setElement(_ value: SlotValue, at index: Int) {
        withUnsafeMutablePointerToElements { $0[index] = value }
    }

    @inline(__always)
    func append(_ value: SlotValue) {
        withUnsafeMutablePointers { header, elements in
            (elements + header.pointee.written).initialize(to: value)
            header.pointee.written += 1
        }
    }

    func append(repeating value: SlotValue, count: Int) {
        withUnsafeMutablePointers { header, elements in
            (elements + header.pointee.written).initialize(repeating: value, count: count)
            header.pointee.written += count
        }
    }

    /// Appends copies of `values`: the array that holds them still owns, and later releases, its own.
    func append(copying values: UnsafeBufferPointer<SlotValue>) {
        withUnsafeMutablePointers { header, elements in
            (elements + header.pointee.written).initialize(from: values.baseAddress!, count: values.count)
            header.pointee.written += values.count
        }
    }

    func copyElements(from start: Int, count: Int, into other: SlotStorage) {
        withUnsafeMutablePointerToElements { elements in
            other.withUnsafeMutablePointers { header, target in
                // One by one: the bulk `initialize(from:count:)` copies through the runtime's
                // generic array copy, which cost more than the allocation for a row of a few values.
                let first = target + header.pointee.written
                for offset in 0..<count { (first + offset).initialize(to: elements[start + offset]) }
                header.pointee.written += count
            }
        }
    }

    deinit {
        _ = withUnsafeMutablePointers { header, elements in elements.deinitialize(count: header.pointee.written) }
    }
}

/// Builds many rows into shared storages: a fetch appends each row's values, then takes the row.
/// A class so that the read loop can append from inside closures without the exclusivity checks
/// a captured `var` costs; it lives on one thread.
package final class SlotRowBuilder {
    package init() {}
    /// Values a storage holds: about 24 KB, so a storage stays alive for at most a few hundred
    /// rows' worth of objects, and is allocated below the allocator's mmap threshold.
    static let storageCapacity = 1024

    @exclusivity(unchecked) private var storage: SlotStorage?
    @exclusivity(unchecked) private var rowStart = 0

    /// Starts a row of `width` values.
    @inline(__always)
    package func beginRow(width: Int) {
        if storage == nil || storage!.room < width {
            storage = SlotStorage.make(capacity: Swift.max(Self.storageCapacity, width))
        }
        rowStart = storage!.written
    }

    /// Appends the next value of the row begun last.
    @inline(__always)
    package func append(_ value: SlotValue) { storage.unsafelyUnwrapped.append(value) }

    /// The row begun last, with the values appended since.
    @inline(__always)
    package func endRow() -> SlotRow {
        SlotRow(storage: storage!, start: rowStart, count: storage!.written - rowStart)
    }
}
