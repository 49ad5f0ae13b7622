import Foundation

/// Writes Apple's binary property list format (`bplist00`), with the archiver's UID references
/// that Foundation's writer on Linux cannot produce. Objects are added one by one and refer to
/// each other by the index `add` returns; `data(top:)` lays them out with the smallest offset and
/// reference widths that fit, as Apple's writer does.
struct BinaryPropertyListWriter {
    /// One object of the list; arrays and dictionaries hold indexes of other objects.
    enum Object {
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case data(Data)
        case string(String)
        case uid(Int)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private var objects: [Object] = []

    /// Adds `object` and returns the index other objects refer to it by.
    mutating func add(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    /// The list, with `top` as its root object.
    ///
    /// - Complexity: O(n) in the objects' total size.
    func data(top: Int) -> Data {
        let referenceSize = Self.width(of: UInt64(max(objects.count - 1, 0)))
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(bytes.count)
            encode(object, referenceSize: referenceSize, into: &bytes)
        }
        let tableOffset = bytes.count
        let offsetSize = Self.width(of: UInt64(tableOffset))
        for offset in offsets { Self.append(UInt64(offset), size: offsetSize, to: &bytes) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        Self.append(UInt64(objects.count), size: 8, to: &bytes)
        Self.append(UInt64(top), size: 8, to: &bytes)
        Self.append(UInt64(tableOffset), size: 8, to: &bytes)
        return Data(bytes)
    }

    private func encode(_ object: Object, referenceSize: Int, into bytes: inout [UInt8]) {
        switch object {
        case .bool(let value):
            bytes.append(value ? 0x09 : 0x08)
        case .integer(let value):
            // Negative numbers take eight bytes: shorter integers are read as unsigned.
            let size = value < 0 ? 8 : Self.width(of: UInt64(value))
            bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
            Self.append(UInt64(bitPattern: value), size: size, to: &bytes)
        case .real(let value):
            bytes.append(0x23)
            Self.append(value.bitPattern, size: 8, to: &bytes)
        case .data(let data):
            Self.marker(0x4, count: data.count, into: &bytes)
            bytes += data
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                Self.marker(0x5, count: text.utf8.count, into: &bytes)
                bytes += text.utf8
            } else {
                let units = Array(text.utf16)
                Self.marker(0x6, count: units.count, into: &bytes)
                for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            }
        case .uid(let value):
            let size = Self.width(of: UInt64(value))
            bytes.append(0x80 | UInt8(size - 1))
            Self.append(UInt64(value), size: size, to: &bytes)
        case .array(let references):
            Self.marker(0xA, count: references.count, into: &bytes)
            for reference in references { Self.append(UInt64(reference), size: referenceSize, to: &bytes) }
        case .dictionary(let keys, let values):
            Self.marker(0xD, count: keys.count, into: &bytes)
            for reference in keys + values { Self.append(UInt64(reference), size: referenceSize, to: &bytes) }
        }
    }

    /// A marker with its count in the low nibble, or followed by an integer object from 15 on.
    private static func marker(_ kind: UInt8, count: Int, into bytes: inout [UInt8]) {
        if count < 0xF {
            bytes.append(kind << 4 | UInt8(count))
        } else {
            bytes.append(kind << 4 | 0xF)
            let size = width(of: UInt64(count))
            bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
            append(UInt64(count), size: size, to: &bytes)
        }
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    private static func width(of value: UInt64) -> Int {
        switch value {
        case ...0xFF: 1
        case ...0xFFFF: 2
        case ...0xFFFF_FFFF: 4
        default: 8
        }
    }

    private static func append(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
