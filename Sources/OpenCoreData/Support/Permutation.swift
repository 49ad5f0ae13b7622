extension Array {
    /// Rearranges the elements so that position `i` holds what was at `order[i]`, by swaps along
    /// each cycle of the permutation: no element is copied, so none is retained and released
    /// again. `order` (a permutation of the indices) is used up.
    mutating func permute(by order: inout [Int32]) {
        precondition(order.count == count, "A permutation of \(count) elements has \(order.count) positions")
        // Through buffers: `Array.swapAt` retained and released the elements it swapped.
        withUnsafeMutableBufferPointer { elements in
            order.withUnsafeMutableBufferPointer { order in
                for start in order.indices where order[start] >= 0 {
                    var position = start
                    while true {
                        let source = Int(order[position])
                        order[position] = -1
                        if source == start { break }
                        elements.swapAt(position, source)
                        position = source
                    }
                }
            }
        }
    }
}
