import Foundation
import FuzzSupport

/// The environment variables every fuzz test reads: how many inputs (each its own variable, with a
/// default bounded for CI), the seed (`OPENCOREDATA_FUZZ_SEED`) and how slow an input may be
/// before it counts as a hang (`OPENCOREDATA_FUZZ_HANG_SECONDS`, 10 s: a debug build on a loaded
/// machine).
enum FuzzSettings {
    static let environment = ProcessInfo.processInfo.environment
    static let seed = environment["OPENCOREDATA_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_126
    static let hangSeconds = environment["OPENCOREDATA_FUZZ_HANG_SECONDS"].flatMap(Double.init) ?? 10

    static func iterations(_ variable: String, default value: Int) -> Int {
        environment[variable].flatMap(Int.init) ?? value
    }

    /// Seconds since `start` (a `DispatchTime` uptime in nanoseconds).
    static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// The damage the byte-level fuzz tests do to a seed: 1 to 3 of bits flipped, a byte set to a
/// limit, the rest cut off, a short piece repeated.
enum ByteMutation {
    static func damage(_ seed: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let position = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 5 {
            case 0, 1: bytes[position] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8))
            case 2: bytes[position] = [0x00, 0xFF, 0x7F, 0x80, 0x0F][Int(random.next() % 5)]
            case 3: bytes.removeSubrange(position...)
            default:
                let end = min(bytes.count, position + 1 + Int(random.next() % 16))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            }
            if bytes.isEmpty { bytes = [0] }
        }
        return bytes
    }
}
