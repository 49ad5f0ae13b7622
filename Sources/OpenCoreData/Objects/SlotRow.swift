/// One row of slot values (an object's values, a committed snapshot, a row a store read): a
/// window into storage that may hold many rows.
///
/// A fetch reads its rows into column blocks (`ColumnBlock`) instead of an array per row, which
/// saved an allocation, a 32-byte array header and the allocator's overhead per fetched object,
/// and keeps each value in the bytes its kind needs. Values written by the app live in a
/// `SlotStorage`. Writing to a row whose storage is shared, or that lives in a block, copies the
/// row out first, as writing to a shared array would.
package struct SlotRow: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral {
    /// Where the values are. Two class references: the enum is one word (its case in the
    /// pointers' spare bits).
    private enum Backing {
        case slots(SlotStorage)
        case columns(ColumnBlock)
    }

    /// Nil for an empty row, so that an object's empty values cost no storage.
    private var backing: Backing?
    /// The row's first value in a `SlotStorage`, or its row number in a `ColumnBlock`.
    private var start: Int32
    /// 16 bits: the two bytes this leaves in the row's tail padding hold an object's fault state
    /// and flags (`NSManagedObject`), which saves the object a word.
    private var length: UInt16

    init() {
        backing = nil
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
        self.backing = .slots(storage)
        self.start = Int32(start)
        self.length = UInt16(count)
    }

    fileprivate init(block: ColumnBlock, row: Int) {
        precondition(block.width <= Int(UInt16.max), "An entity has at most 65,535 properties")
        self.backing = .columns(block)
        self.start = Int32(row)
        self.length = UInt16(block.width)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { Int(length) }
    package var count: Int { Int(length) }
    package var isEmpty: Bool { length == 0 }

    package subscript(index: Int) -> SlotValue {
        get {
            precondition(index >= 0 && index < Int(length), "Slot index out of range")
            switch backing.unsafelyUnwrapped {
            case .slots(let storage): return storage.element(at: Int(start) + index)
            case .columns(let block): return block.value(row: Int(start), column: index)
            }
        }
        set {
            precondition(index >= 0 && index < Int(length), "Slot index out of range")
            // Unretained: the row holds its storage. Returned retained, it was a retain and a
            // release for every value an app sets (perf, a million inserts).
            makeUnique()._withUnsafeGuaranteedRef { $0.setElement(newValue, at: Int(start) + index) }
        }
    }

    /// Starts loading the row's values into the cache when they live in a column block (a
    /// fetched row), so that the reads that follow find them there (`ColumnBlock.prefetch(row:)`).
    func prefetch() {
        if case .columns(let block)? = backing { block.prefetch(row: Int(start)) }
    }

    /// Whether `other` is this very row: the same values in the same storage, not just equal ones.
    func isSameRow(as other: SlotRow) -> Bool {
        guard start == other.start, length == other.length else { return false }
        switch (backing, other.backing) {
        case (nil, nil): return true
        case (.slots(let mine)?, .slots(let theirs)?): return mine === theirs
        case (.columns(let mine)?, .columns(let theirs)?): return mine === theirs
        default: return false
        }
    }

    /// Whether the value at `index` is missing, of the wrong type, or some value, read in place
    /// (no payload copied).
    func presence(at index: Int) -> SlotPresence {
        precondition(index >= 0 && index < Int(length), "Slot index out of range")
        switch backing.unsafelyUnwrapped {
        case .columns(let block): return block.presence(row: Int(start), column: index)
        case .slots(let storage):
            return storage.withUnsafeMutablePointerToElements { elements in
                switch elements[Int(start) + index] {
                case .null: .null
                case .invalid: .invalid
                default: .value
                }
            }
        }
    }

    /// Gives the row a `SlotStorage` of its own when it shares one or lives in a column block,
    /// and returns it, unretained: the row holds it until changed again.
    private mutating func makeUnique() -> Unmanaged<SlotStorage> {
        if case .slots(var storage) = backing.unsafelyUnwrapped {
            // Out of `backing` while asking, or the copy just made would count as a second owner.
            backing = nil
            let unique = isKnownUniquelyReferenced(&storage)
            backing = .slots(storage)
            if unique { return .passUnretained(storage) }
        }
        let copy = SlotStorage.make(capacity: count)
        switch backing.unsafelyUnwrapped {
        case .slots(let storage): storage.copyElements(from: Int(start), count: count, into: copy)
        case .columns(let block): for index in 0..<count { copy.append(block.value(row: Int(start), column: index)) }
        }
        backing = .slots(copy)
        start = 0
        return .passUnretained(copy)
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

/// Builds many rows into column blocks: a fetch appends each row's values, then takes the row.
/// A class so that the read loop can append from inside closures without the exclusivity checks
/// a captured `var` costs; it lives on one thread at a time.
///
/// `seal()` before handing rows to another thread: the blocks of sealed rows are never written
/// again (a block grows and changes its columns' forms while it is built).
package final class SlotRowBuilder {
    package init() {}
    /// Rows a block first makes room for: a ten-row fetch has no use for more.
    static let firstCapacity = 64
    /// Rows a block holds at most: about a fetch chunk's worth (`SQLiteStore.rowsPerChunk`), so a
    /// block stays alive for at most a few thousand rows' worth of objects.
    static let blockCapacity = 4_096

    @exclusivity(unchecked) private var block: ColumnBlock?
    /// Blocks of other widths, for a read whose rows alternate between entities.
    @exclusivity(unchecked) private var others: [Int: ColumnBlock] = [:]
    @exclusivity(unchecked) private var column = 0
    /// The row begun last has no values.
    @exclusivity(unchecked) private var rowIsEmpty = false

    /// Starts a row of `width` values.
    @inline(__always)
    package func beginRow(width: Int) {
        column = 0
        rowIsEmpty = width == 0
        if rowIsEmpty { return }
        if let block, block.width == width, block.count < block.capacity { return }
        beginBlock(width: width)
    }

    private func beginBlock(width: Int) {
        if let block, block.width != width { others[block.width] = block }
        let next = block?.width == width ? block! : others.removeValue(forKey: width)
        if let next, next.count < next.capacity {
            block = next
        } else if let next, next.capacity < Self.blockCapacity {
            next.grow(to: min(next.capacity * 4, Self.blockCapacity))
            block = next
        } else {
            // After a full block, the rows keep coming: start the next one as large.
            block = ColumnBlock(width: width, capacity: next?.capacity ?? Self.firstCapacity)
        }
    }

    /// Appends the next value of the row begun last.
    @inline(__always)
    package func append(_ value: SlotValue) {
        // Borrowed: read from the field, the block was retained and released around every
        // value written, a third of the reading thread's time in a million-row fetch (perf).
        Unmanaged.passUnretained(block.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.write(value, column: column) }
        column &+= 1
    }

    /// Appends the next value of the row begun last: an integer (`append(.int(number))`), or
    /// NULL for nil.
    @inline(__always)
    package func appendInteger(_ number: Int64?) {
        guard let number else { return append(.null) }
        Unmanaged.passUnretained(block.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.writeInteger(number, column: column) }
        column &+= 1
    }

    /// Appends the next value of the row begun last: a double, or with `isDate` a date of that
    /// many seconds since the reference date; NULL for nil.
    @inline(__always)
    package func appendDouble(_ number: Double?, isDate: Bool) {
        guard let number else { return append(.null) }
        Unmanaged.passUnretained(block.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            $0.writeDouble(number, isDate: isDate, column: column)
        }
        column &+= 1
    }

    /// Appends the next value of the row begun last: a string, or NULL for nil.
    @inline(__always)
    package func appendString(_ string: String?) {
        guard let string else { return append(.null) }
        Unmanaged.passUnretained(block.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.writeString(string, column: column) }
        column &+= 1
    }

    /// The row begun last, with the values appended since.
    @inline(__always)
    package func endRow() -> SlotRow {
        guard !rowIsEmpty, let block else { return SlotRow() }
        block.finishRow()
        return SlotRow(block: block, row: block.count - 1)
    }

    /// Ends the blocks being built: rows begun after this go into new ones. Call it before rows
    /// built so far reach another thread.
    package func seal() {
        block = nil
        others = [:]
    }
}
