import CSwiftRetain
import Foundation

/// Rows a fetch read, kept column by column: each column holds its values in the narrowest form
/// they allow (an integer in one to eight bytes, a date or double in eight, a string in sixteen),
/// with a bit per row for NULL, instead of a 24-byte `SlotValue` per value. A row of it is a
/// `SlotRow`; every fetched object of the run shares the block.
///
/// A column's form follows the values written: it starts as "all NULL", becomes typed with its
/// first value, widens when an integer does not fit, and falls back to `SlotValue`s when a
/// value of another kind arrives. Forms change and storage grows only while the block is being
/// built: `SlotRowBuilder` seals it before handing any of its rows to another thread, and after
/// that the block is read-only (writing to one of its rows copies the row out first).
final class ColumnBlock {
    /// Values a row holds.
    let width: Int
    /// Rows written so far.
    private(set) var count = 0
    /// Rows there is room for without growing.
    private(set) var capacity: Int
    /// `width` columns.
    private let columns: UnsafeMutablePointer<BlockColumn>

    /// A block with room for `capacity` rows of `width` values.
    ///
    /// - Parameters:
    ///   - width: Values a row holds; more than zero.
    ///   - capacity: Rows to make room for; the block grows past it (`grow(to:)`).
    init(width: Int, capacity: Int) {
        precondition(width > 0 && capacity > 0)
        self.width = width
        self.capacity = capacity
        columns = .allocate(capacity: width)
        columns.initialize(repeating: BlockColumn(), count: width)
    }

    deinit {
        for index in 0..<width { columns[index].free(count: count) }
        columns.deinitialize(count: width)
        columns.deallocate()
    }

    /// The value in `column` of `row`.
    @inline(__always)
    func value(row: Int, column: Int) -> SlotValue {
        columns[column].value(at: row)
    }

    /// Starts loading every cell of `row` into the cache, without waiting for any.
    ///
    /// A fetch sorted in memory hands its objects out in an order unrelated to the block's, so
    /// each of a row's cells is a cache miss; read one after the other behind a long accessor
    /// path, the misses wait in turn. Asked for together when the row is first read, they overlap.
    ///
    /// - Parameter row: A row below `count`.
    /// - Complexity: O(*w*), *w* the block's width.
    func prefetch(row: Int) {
        for index in 0..<width { columns[index].prefetch(row) }
    }

    /// Whether the value in `column` of `row` is NULL, of the wrong type, or some value, read
    /// without making a `SlotValue`.
    func presence(row: Int, column: Int) -> SlotPresence {
        columns[column].presence(at: row)
    }

    /// Writes the next row's value for `column`; the row counts once `finishRow()` is called.
    @inline(__always)
    func write(_ value: SlotValue, column: Int) {
        columns[column].write(value, at: count, capacity: capacity)
    }

    /// Writes the next row's integer for `column`: `write(.int(number), column:)` without the
    /// `SlotValue` (a store's read writes most values this way).
    @inline(__always)
    func writeInteger(_ number: Int64, column: Int) {
        columns[column].writeInteger(number, at: count, capacity: capacity)
    }

    /// Writes the next row's double for `column`, or its date when `isDate`.
    @inline(__always)
    func writeDouble(_ number: Double, isDate: Bool, column: Int) {
        columns[column].writeDouble(number, isDate: isDate, at: count, capacity: capacity)
    }

    /// Writes the next row's string for `column`.
    @inline(__always)
    func writeString(_ string: String, column: Int) {
        columns[column].writeString(string, at: count, capacity: capacity)
    }

    /// Counts the row whose values were written last.
    @inline(__always)
    func finishRow() { count += 1 }

    /// Moves every column into storage for `newCapacity` rows.
    ///
    /// - Complexity: O(*n*) in the values written.
    func grow(to newCapacity: Int) {
        precondition(newCapacity >= capacity)
        for index in 0..<width { columns[index].grow(count: count, from: capacity, to: newCapacity) }
        capacity = newCapacity
    }
}

/// The form a `BlockColumn` keeps its values in.
enum BlockColumnForm: Equatable {
    /// Every value so far is NULL (a transient, or a column nobody has set): nothing stored.
    case nulls
    /// Every value so far is `unloaded` (a to-many relationship): nothing stored.
    case unloaded
    /// Integers of this many bytes (1, 2, 4 or 8).
    case integer(bytes: Int)
    case bool
    case double
    /// Seconds since the reference date, as `Date` keeps them.
    case date
    case string
    case reference
    /// Any `SlotValue`, for values of several kinds or of kinds without a form of their own.
    case values

    /// Bytes a value of this form takes.
    var stride: Int {
        switch self {
        case .nulls, .unloaded: 0
        case .integer(let bytes): bytes
        case .bool: 1
        case .double, .date: 8
        case .string: MemoryLayout<String>.stride
        case .reference: MemoryLayout<ObjectReference>.stride
        case .values: MemoryLayout<SlotValue>.stride
        }
    }

    /// Whether a bit per row says which rows hold a value (the others are NULL).
    var isTyped: Bool {
        switch self {
        case .nulls, .unloaded, .values: false
        default: true
        }
    }

    /// The narrowest typed form that holds `value`, or nil when it has none.
    static func typed(for value: SlotValue) -> BlockColumnForm? {
        switch value {
        case .int(let number): .integer(bytes: integerBytes(number))
        case .bool: .bool
        case .double: .double
        case .date: .date
        case .string: .string
        case .reference: .reference
        default: nil
        }
    }

    static func integerBytes(_ number: Int64) -> Int {
        if Int8(exactly: number) != nil { return 1 }
        if Int16(exactly: number) != nil { return 2 }
        if Int32(exactly: number) != nil { return 4 }
        return 8
    }
}

/// One column of a `ColumnBlock`: its form, its values, and for typed forms a bit per row set
/// when the row holds a value. Every cell below the block's count is initialized (a NULL row of a
/// typed column holds zero or an empty string), so freeing and moving need not read the bits.
struct BlockColumn {
    private(set) var form = BlockColumnForm.nulls
    private var storage: UnsafeMutableRawPointer?
    private var present: UnsafeMutablePointer<UInt64>?

    @inline(__always)
    private func isPresent(_ row: Int) -> Bool {
        present.unsafelyUnwrapped[row >> 6] & (1 << UInt64(row & 63)) != 0
    }

    @inline(__always)
    private func markPresent(_ row: Int) {
        present.unsafelyUnwrapped[row >> 6] |= 1 << UInt64(row & 63)
    }

    func value(at row: Int) -> SlotValue {
        switch form {
        case .nulls: return .null
        case .unloaded: return .unloaded
        case .values: return storage.unsafelyUnwrapped.assumingMemoryBound(to: SlotValue.self)[row]
        default: break
        }
        guard isPresent(row) else { return .null }
        let cells = storage.unsafelyUnwrapped
        switch form {
        case .integer(let bytes):
            switch bytes {
            case 1: return .int(Int64(cells.load(fromByteOffset: row, as: Int8.self)))
            case 2: return .int(Int64(cells.load(fromByteOffset: row &* 2, as: Int16.self)))
            case 4: return .int(Int64(cells.load(fromByteOffset: row &* 4, as: Int32.self)))
            default: return .int(cells.load(fromByteOffset: row &* 8, as: Int64.self))
            }
        case .bool: return .bool(cells.load(fromByteOffset: row, as: Bool.self))
        case .double: return .double(cells.load(fromByteOffset: row &* 8, as: Double.self))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: cells.load(fromByteOffset: row &* 8, as: Double.self)))
        case .string: return .string(cells.assumingMemoryBound(to: String.self)[row])
        case .reference: return .reference(cells.assumingMemoryBound(to: ObjectReference.self)[row])
        case .nulls, .unloaded, .values: return .null
        }
    }

    /// Starts loading the cell of `row` (and its presence bits) into the cache.
    func prefetch(_ row: Int) {
        guard let storage else { return }
        ocd_prefetch(storage + row &* form.stride)
        if let present { ocd_prefetch(present + (row >> 6)) }
    }

    func presence(at row: Int) -> SlotPresence {
        switch form {
        case .nulls: return .null
        case .unloaded: return .value
        case .values:
            switch storage.unsafelyUnwrapped.assumingMemoryBound(to: SlotValue.self)[row] {
            case .null: return .null
            case .invalid: return .invalid
            default: return .value
            }
        default: return isPresent(row) ? .value : .null
        }
    }

    /// Writes `value` into `row`, the row after the last written, changing the column's form
    /// first when the value does not fit it.
    mutating func write(_ value: SlotValue, at row: Int, capacity: Int) {
        switch (form, value) {
        case (.nulls, .null), (.unloaded, .unloaded):
            return
        case (.values, _):
            storage.unsafelyUnwrapped.assumingMemoryBound(to: SlotValue.self).advanced(by: row).initialize(to: value)
            return
        case (_, .null) where form.isTyped:
            initializeEmpty(row)
            return
        case (.integer(let bytes), .int(let number)) where BlockColumnForm.integerBytes(number) <= bytes:
            storeInteger(number, bytes: bytes, at: row)
        case (.bool, .bool(let flag)):
            storage.unsafelyUnwrapped.storeBytes(of: flag, toByteOffset: row, as: Bool.self)
        case (.double, .double(let number)):
            storeDouble(number, at: row)
        case (.date, .date(let date)):
            storeDouble(date.timeIntervalSinceReferenceDate, at: row)
        case (.string, .string(let string)):
            storeString(string, at: row)
        case (.reference, .reference(let reference)):
            storage.unsafelyUnwrapped.assumingMemoryBound(to: ObjectReference.self).advanced(by: row).initialize(to: reference)
        default:
            // The value does not fit the form: change it, then write again.
            reform(for: value, rows: row, capacity: capacity)
            write(value, at: row, capacity: capacity)
            return
        }
        markPresent(row)
    }

    /// `write(.int(number), at:capacity:)`, without making and matching a `SlotValue` when the
    /// column's form takes the integer as it is.
    @inline(__always)
    mutating func writeInteger(_ number: Int64, at row: Int, capacity: Int) {
        guard case .integer(let bytes) = form, bytes == 8 || BlockColumnForm.integerBytes(number) <= bytes else {
            return write(.int(number), at: row, capacity: capacity)
        }
        storeInteger(number, bytes: bytes, at: row)
        markPresent(row)
    }

    /// Stores `number`, which fits in `bytes`, in the cell of `row` of an integer column.
    @inline(__always)
    private func storeInteger(_ number: Int64, bytes: Int, at row: Int) {
        let cells = storage.unsafelyUnwrapped
        switch bytes {
        case 1: cells.storeBytes(of: Int8(truncatingIfNeeded: number), toByteOffset: row, as: Int8.self)
        case 2: cells.storeBytes(of: Int16(truncatingIfNeeded: number), toByteOffset: row &* 2, as: Int16.self)
        case 4: cells.storeBytes(of: Int32(truncatingIfNeeded: number), toByteOffset: row &* 4, as: Int32.self)
        default: cells.storeBytes(of: number, toByteOffset: row &* 8, as: Int64.self)
        }
    }

    /// `write(.double(number))`, or `write(.date(…))` of `number` seconds since the reference
    /// date when `isDate`, without the `SlotValue` when the column's form is that kind.
    @inline(__always)
    mutating func writeDouble(_ number: Double, isDate: Bool, at row: Int, capacity: Int) {
        guard form == (isDate ? .date : .double) else {
            let value: SlotValue = isDate ? .date(Date(timeIntervalSinceReferenceDate: number)) : .double(number)
            return write(value, at: row, capacity: capacity)
        }
        storeDouble(number, at: row)
        markPresent(row)
    }

    /// `write(.string(string))`, without the `SlotValue` when the column's form is strings.
    @inline(__always)
    mutating func writeString(_ string: String, at row: Int, capacity: Int) {
        guard case .string = form else { return write(.string(string), at: row, capacity: capacity) }
        storeString(string, at: row)
        markPresent(row)
    }

    /// Stores `number` in the cell of `row` of a double or date column.
    @inline(__always)
    private func storeDouble(_ number: Double, at row: Int) {
        storage.unsafelyUnwrapped.storeBytes(of: number, toByteOffset: row &* 8, as: Double.self)
    }

    /// Initializes the cell of `row` of a string column with `string`.
    @inline(__always)
    private func storeString(_ string: String, at row: Int) {
        storage.unsafelyUnwrapped.assumingMemoryBound(to: String.self).advanced(by: row).initialize(to: string)
    }

    /// A NULL row of a typed column: an initialized cell whose bit stays clear.
    private func initializeEmpty(_ row: Int) {
        let cells = storage.unsafelyUnwrapped
        switch form {
        case .string: cells.assumingMemoryBound(to: String.self).advanced(by: row).initialize(to: "")
        case .reference:
            cells.assumingMemoryBound(to: ObjectReference.self).advanced(by: row).initialize(to: ObjectReference(entityNumber: 0, primaryKey: 0))
        default: break  // plain bytes: whatever they hold is never read
        }
    }

    /// Changes the form so that `value` fits, keeping the first `rows` values.
    private mutating func reform(for value: SlotValue, rows: Int, capacity: Int) {
        var target = BlockColumnForm.values
        if let typed = BlockColumnForm.typed(for: value) {
            switch (form, typed) {
            case (.nulls, _): target = typed
            case (.integer(let bytes), .integer(let needed)): target = .integer(bytes: max(bytes, needed))
            default: break
            }
        }
        var replacement = BlockColumn()
        replacement.form = target
        replacement.allocate(capacity: capacity)
        for row in 0..<rows { replacement.write(self.value(at: row), at: row, capacity: capacity) }
        free(count: rows)
        self = replacement
    }

    /// Storage for `capacity` rows of the current form.
    private mutating func allocate(capacity: Int) {
        let stride = form.stride
        guard stride > 0 else { return }
        storage = .allocate(byteCount: stride * capacity, alignment: 16)
        if form.isTyped {
            let words = (capacity + 63) / 64
            present = .allocate(capacity: words)
            present!.initialize(repeating: 0, count: words)
        }
    }

    /// Moves the first `count` values into storage for `newCapacity` rows.
    mutating func grow(count: Int, from capacity: Int, to newCapacity: Int) {
        guard let old = storage else { return }
        let oldPresent = present
        allocate(capacity: newCapacity)
        let cells = storage.unsafelyUnwrapped
        switch form {
        case .string:
            cells.assumingMemoryBound(to: String.self).moveInitialize(from: old.assumingMemoryBound(to: String.self), count: count)
        case .values:
            cells.assumingMemoryBound(to: SlotValue.self).moveInitialize(from: old.assumingMemoryBound(to: SlotValue.self), count: count)
        default:
            cells.copyMemory(from: old, byteCount: form.stride * count)
        }
        old.deallocate()
        if let oldPresent {
            present.unsafelyUnwrapped.update(from: oldPresent, count: (capacity + 63) / 64)
            oldPresent.deallocate()
        }
    }

    /// Frees the storage, deinitializing the first `count` values.
    mutating func free(count: Int) {
        if let storage {
            switch form {
            case .string: storage.assumingMemoryBound(to: String.self).deinitialize(count: count)
            case .values: storage.assumingMemoryBound(to: SlotValue.self).deinitialize(count: count)
            default: break
            }
            storage.deallocate()
        }
        present?.deallocate()
        storage = nil
        present = nil
        form = .nulls
    }
}
