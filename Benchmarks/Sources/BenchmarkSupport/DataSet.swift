import Foundation

/// The tutorials' to-do items: name "Item i", createdAt spread over one year, done at random.
/// Generated once per process from a fixed seed, before anything is timed, so every way writes and
/// reads exactly the same rows.
public struct DataSet: Sendable {
    public let names: [String]
    public let dates: [Date]
    public let done: [Bool]

    public var count: Int { names.count }

    /// The first instant of the year the dates are spread over (2025-01-01 00:00:00 UTC).
    public static let yearStart = Date(timeIntervalSinceReferenceDate: 757_382_400)
    public static let yearLength: TimeInterval = 365 * 24 * 3600

    /// The date of the `createdAt > %@` predicate: the middle of the year, so about half of the
    /// rows match it (and about a quarter the whole `done == NO AND createdAt > %@`).
    public static let predicateDate = yearStart.addingTimeInterval(yearLength / 2)

    public init(rows: Int, seed: UInt64 = 0x5EED_0F_7000) {
        var generator = SplitMix64(seed: seed)
        var names: [String] = []
        var dates: [Date] = []
        var done: [Bool] = []
        names.reserveCapacity(rows)
        dates.reserveCapacity(rows)
        done.reserveCapacity(rows)
        for i in 0..<rows {
            names.append("Item \(i)")
            let offset = Double(generator.next() >> 11) / Double(1 << 53) * Self.yearLength
            // Whole milliseconds, as an app's timestamps usually are.
            dates.append(Self.yearStart.addingTimeInterval((offset * 1000).rounded(.down) / 1000))
            done.append(generator.next() & 1 == 1)
        }
        self.names = names
        self.dates = dates
        self.done = done
    }
}

/// A small seeded generator (SplitMix64), so the data set is the same on every run and machine.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
