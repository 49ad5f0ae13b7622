/// Damage to a store file as the store-opening fuzz tests do it: one to four changes, half of them
/// in SQLite's header or at the start of a page where its structures are: bits flipped, bytes
/// set to limits or random values, a page zeroed, the rest of the file cut off.
public enum StoreFileMutation {
    /// A mutant of `seed`, drawn from `random`.
    public static func mutant(of seed: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        let pageSize = 4096
        for _ in 0..<(1 + Int(random.next() % 4)) {
            // Half the changes fall in the first 100 bytes (the header) or at the start of a page,
            // where SQLite's structures are; the rest anywhere.
            let anywhere = Int(random.next() % UInt64(bytes.count))
            let page = Int(random.next() % UInt64(max(1, bytes.count / pageSize))) * pageSize
            let position: Int
            switch random.next() % 4 {
            case 0: position = min(bytes.count - 1, Int(random.next() % 100))
            case 1: position = min(bytes.count - 1, page + Int(random.next() % 16))
            default: position = anywhere
            }
            switch random.next() % 8 {
            case 0, 1, 2: bytes[position] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8))
            case 3, 4:
                let limits: [UInt8] = [0x00, 0xFF, 0x7F, 0x80, 0x01]
                let limit = limits[Int(random.next() % 5)]
                let end = min(bytes.count, position + 1 + Int(random.next() % 8))
                for index in position..<end { bytes[index] = limit }
            case 5: bytes[position] = UInt8(truncatingIfNeeded: random.next())
            case 6:
                for index in page..<min(bytes.count, page + pageSize) { bytes[index] = 0 }
            default:
                if random.next() % 4 == 0 { bytes.removeSubrange(max(1, position)...) }
            }
            if bytes.isEmpty { break }
        }
        return bytes
    }
}
