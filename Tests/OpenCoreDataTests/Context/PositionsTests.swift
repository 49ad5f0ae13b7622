import Testing
@testable import OpenCoreData

/// The positions a cancelled asynchronous fetch takes back come out last first, with the gaps
/// (objects the context already held) skipped.
@Suite struct PositionsTests {
    @Test func positionsComeBackLastFirstAcrossRuns() {
        var positions = Positions()
        let added = [0, 1, 2, 5, 6, 9]
        for position in added { positions.append(position) }
        var taken: [Int] = []
        while let last = positions.last {
            taken.append(last)
            positions.removeLast()
        }
        #expect(taken == added.reversed())
        #expect(positions.last == nil)
    }
}
