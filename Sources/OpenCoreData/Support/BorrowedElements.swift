extension Array {
    /// Calls `body` with each element and its position, the element borrowed from the array.
    ///
    /// A `for in` loop copies each element out of the array: when the body calls code the
    /// optimizer cannot see through, the copy stays, a retain and a release (two atomic
    /// operations) per reference the element holds. A save walks its million inserted objects
    /// several times, and binds every column of every row from a plan's writes.
    ///
    /// - Parameter body: Called once per element, in order, with its position and the element.
    /// - Throws: What `body` throws; the walk stops there.
    /// - Complexity: O(*n*) calls of `body`.
    @inline(__always)
    func forEachBorrowed(_ body: (Int, Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for position in buffer.indices { try body(position, (base + position).pointee) }
        }
    }
}

extension Array where Element: AnyObject {
    /// Calls `body` with each element, unretained.
    ///
    /// `forEachBorrowed` still retains an element around a call of an overridable method on it:
    /// the element is read from memory the method could change. Read as an address, it is not;
    /// the array keeps it alive. A fetch that fills its objects calls `awakeFromFetch` on each of
    /// a million.
    ///
    /// - Parameter body: Called once per element, in order (use it with
    ///   `_withUnsafeGuaranteedRef`); it must not change the array.
    /// - Throws: What `body` throws; the walk stops there.
    /// - Complexity: O(*n*) calls of `body`.
    @inline(__always)
    func forEachUnretained(_ body: (Unmanaged<Element>) throws -> Void) rethrows {
        try withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // Each element's bits loaded as an address: the memory stays typed as `Element`.
            let raw = UnsafeRawPointer(base)
            for position in buffer.indices {
                let address = raw.load(fromByteOffset: position &* MemoryLayout<Element>.stride, as: UnsafeRawPointer.self)
                try body(.fromOpaque(address))
            }
        }
    }
}
