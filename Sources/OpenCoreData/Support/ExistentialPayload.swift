/// Reads the common values out of an `Any` without the runtime's dynamic cast.
///
/// `value as? String` on an `Any` goes through the runtime's general cast (about 250
/// instructions, plus a copy of the existential); `setValue(_:forKey:)` does it for every
/// property of every object inserted. An `Any` is laid out by Swift's ABI (docs/ABI/TypeLayout.rst,
/// "Existential Container Layout") as three words of inline buffer followed by the dynamic
/// type's metadata, and a value that fits those three words, is word-aligned at most and bitwise
/// takable is held inline at the start of the buffer. The types read here all are;
/// `ExistentialPayloadTests` reads each one back (and `nil`, and look-alike types that must not
/// match), so a change of layout fails there instead of misreading values.
enum ExistentialPayload {
    private static let metadataOffset = 3 * MemoryLayout<Int>.stride

    /// Calls `body` with the dynamic type of the value `value` holds and the address of its
    /// inline payload, or returns nil when `value` is nil. The pointer is valid only inside `body`.
    @inline(__always)
    static func withPayload<R>(
        of value: borrowing Any?, _ body: (Any.Type, UnsafeRawPointer) -> R
    ) -> R? {
        withUnsafePointer(to: value) { pointer in
            let raw = UnsafeRawPointer(pointer)
            // Optional<Any> keeps `none` in the metadata word, which is null then.
            guard let type = raw.load(fromByteOffset: metadataOffset, as: Optional<Any.Type>.self) else {
                return nil
            }
            return body(type, raw)
        }
    }
}
