import Testing

@testable import OpenCoreData

/// The migration's saved associations: consecutive pairs share an entry, and every lookup gives
/// what a plain list of pairs would, in the order the pairs were added.
@Suite struct KeyPairRunsTests {
    /// A plain list's answers, to compare with.
    static func expectSameAnswers(_ pairs: [(UInt64, UInt64)]) {
        var runs = KeyPairRuns()
        for (source, destination) in pairs { runs.append(source: source, destination: destination) }
        #expect(runs.count == pairs.count)
        for (position, pair) in pairs.enumerated() {
            #expect(runs.pair(at: position) == pair)
        }
        for key in Set(pairs.map(\.0) + pairs.map(\.1) + [0, 999]) {
            #expect(runs.destinations(ofSource: key) == pairs.filter { $0.0 == key }.map(\.1), "destinations of \(key)")
            #expect(runs.sources(ofDestination: key) == pairs.filter { $0.1 == key }.map(\.0), "sources of \(key)")
        }
    }

    @Test func keysReadInOrderIntoANewStore() {
        // Source keys with a gap (a deleted row), destinations numbered from 1.
        Self.expectSameAnswers([(3, 1), (4, 2), (5, 3), (9, 4), (10, 5), (11, 6)])
    }

    @Test func oneSourceMadeTwoDestinationsAndKeysOutOfOrder() {
        Self.expectSameAnswers([(10, 1), (11, 2), (11, 3), (2, 4), (3, 5), (12, 6), (1, 20), (2, 7)])
    }

    @Test func aLongRunAndAKeyInsideItAgain() {
        var pairs = (0..<50).map { (UInt64(100 + $0), UInt64(1 + $0)) }
        pairs.append((120, 60))
        pairs.append((7, 61))
        Self.expectSameAnswers(pairs)
    }
}
