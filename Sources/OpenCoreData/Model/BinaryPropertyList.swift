/// A reader of Apple's binary property list format (`bplist00`), keeping the archiver's UID
/// references that Foundation's own reader on Linux hides in an internal class. Every offset,
/// count and reference is checked against the data: a damaged or hostile list is nil, never a
/// trap or a loop.
struct BinaryPropertyList {
    /// One object of the list.
    indirect enum Value {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case date(Double)
        case data(Data)
        case string(String)
        case uid(Int)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int
    let top: Int

    var count: Int { offsets.count }

    /// Parses the trailer and offset table; nil when `data` is not a well-formed binary list.
    init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            let objectCount = Self.integer(bytes, trailer + 8, 8), let top = Self.integer(bytes, trailer + 16, 8),
            let tableOffset = Self.integer(bytes, trailer + 24, 8),
            objectCount > 0, objectCount <= (trailer - 8), top < objectCount,
            tableOffset >= 8, tableOffset <= trailer, objectCount <= (trailer - tableOffset) / offsetSize
        else { return nil }
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            guard let offset = Self.integer(bytes, tableOffset + index * offsetSize, offsetSize), offset >= 8, offset < tableOffset
            else { return nil }
            offsets.append(offset)
        }
        self.bytes = bytes
        self.offsets = offsets
        self.referenceSize = referenceSize
        self.top = top
    }

    /// The object at `index`, or nil when it is malformed or of a kind this reader does not know.
    func value(at index: Int) -> Value? {
        guard index >= 0, index < offsets.count else { return nil }
        var position = offsets[index]
        let marker = bytes[position]
        position += 1
        let kind = marker >> 4
        let low = Int(marker & 0x0F)
        switch kind {
        case 0x0:
            switch low {
            case 0x0: return .null
            case 0x8: return .bool(false)
            case 0x9: return .bool(true)
            default: return nil
            }
        case 0x1:
            guard low <= 3, let value = Self.signed(bytes, position, 1 << low) else { return nil }
            return .integer(value)
        case 0x2:
            guard let value = real(at: position, size: 1 << low) else { return nil }
            return .real(value)
        case 0x3:
            guard low == 3, let value = real(at: position, size: 8) else { return nil }
            return .date(value)
        case 0x8:
            guard let value = Self.integer(bytes, position, low + 1) else { return nil }
            return .uid(value)
        default:
            break
        }
        guard let (length, start) = length(low, at: position) else { return nil }
        switch kind {
        case 0x4:
            guard let end = end(start, length, 1) else { return nil }
            return .data(Data(bytes[start..<end]))
        case 0x5:
            guard let end = end(start, length, 1) else { return nil }
            return .string(String(decoding: bytes[start..<end], as: UTF8.self))
        case 0x6:
            guard let end = end(start, length, 2) else { return nil }
            var units: [UInt16] = []
            units.reserveCapacity(length)
            for offset in stride(from: start, to: end, by: 2) { units.append(UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0xA:
            guard let references = references(start, length) else { return nil }
            return .array(references)
        case 0xD:
            guard let keys = references(start, length), let values = references(start + length * referenceSize, length) else {
                return nil
            }
            return .dictionary(keys: keys, values: values)
        default:
            return nil
        }
    }

    // MARK: Reading bytes

    /// The length of a variable-length object: in the marker, or in an integer object after it.
    private func length(_ low: Int, at position: Int) -> (length: Int, start: Int)? {
        if low < 0xF { return (low, position) }
        guard position < bytes.count, bytes[position] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[position] & 0x0F)
        guard size <= 8, let length = Self.integer(bytes, position + 1, size), length < bytes.count else { return nil }
        return (length, position + 1 + size)
    }

    private func end(_ start: Int, _ count: Int, _ width: Int) -> Int? {
        let (size, overflow) = count.multipliedReportingOverflow(by: width)
        guard !overflow, start <= bytes.count, size <= bytes.count - start else { return nil }
        return start + size
    }

    private func references(_ start: Int, _ count: Int) -> [Int]? {
        guard end(start, count, referenceSize) != nil else { return nil }
        var result: [Int] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            guard let reference = Self.integer(bytes, start + index * referenceSize, referenceSize), reference < offsets.count else {
                return nil
            }
            result.append(reference)
        }
        return result
    }

    private func real(at position: Int, size: Int) -> Double? {
        guard let bits = Self.integer(bytes, position, size, allowingHighBit: true) else { return nil }
        switch size {
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
        case 8: return Double(bitPattern: UInt64(bitPattern: Int64(bits)))
        default: return nil
        }
    }

    /// A big-endian unsigned integer of `size` bytes at `position`; nil past the end or above
    /// `Int.max` (unless `allowingHighBit`, for the bits of a double).
    private static func integer(_ bytes: [UInt8], _ position: Int, _ size: Int, allowingHighBit: Bool = false) -> Int? {
        guard size >= 1, size <= 8, position >= 0, position <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(bytes[position + offset]) }
        if allowingHighBit { return Int(bitPattern: UInt(value)) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    private static func signed(_ bytes: [UInt8], _ position: Int, _ size: Int) -> Int64? {
        guard size >= 1, size <= 8, position >= 0, position <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(bytes[position + offset]) }
        // One to four bytes are unsigned, eight are two's complement.
        return size == 8 ? Int64(bitPattern: value) : Int64(value)
    }
}
