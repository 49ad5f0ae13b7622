import Foundation
import Testing

@testable import OpenCoreData

/// The lifecycle of a batch read ahead, transition by transition: unclaimed → running →
/// finished → taken, and what each transition does where it does not apply.
@Suite struct PendingRowsStateTests {
    static func row(_ key: Int64) -> StoreRow {
        StoreRow(entityNumber: 1, primaryKey: key, version: 1, values: nil)
    }

    @Test func claimingAnUnclaimedReadHandsItOverOnce() throws {
        var state = PendingRowsState.unclaimed { [Self.row(1)] }
        #expect(!state.isFinished)
        guard let read = state.claim() else {
            Issue.record("an unclaimed read was not handed over")
            return
        }
        #expect(try read().map(\.primaryKey) == [1])
        let claimed1 = state.claim()
        #expect(claimed1 == nil, "a second thread finds it claimed")
        #expect(!state.isFinished)
        let taken1 = state.take()
        #expect(taken1 == nil, "nothing to take while it runs")
    }

    @Test func finishedRowsAreTakenOnce() {
        var state = PendingRowsState.unclaimed { [] }
        _ = state.claim()
        state.finish(.success([Self.row(1), Self.row(2)]))
        #expect(state.isFinished)
        let claimed2 = state.claim()
        #expect(claimed2 == nil)
        let taken2 = state.take()
        #expect(taken2?.map(\.primaryKey) == [1, 2])
        #expect(state.isFinished, "taken rows were still read")
        let taken3 = state.take()
        #expect(taken3 == nil)
    }

    @Test func aFailedReadGivesNoRows() {
        var state = PendingRowsState.unclaimed { [] }
        _ = state.claim()
        state.finish(.failure(CocoaError(.fileReadCorruptFile)))
        #expect(state.isFinished)
        let taken4 = state.take()
        #expect(taken4 == nil)
        let taken5 = state.take()
        #expect(taken5 == nil)
    }

    @Test func anUnclaimedReadHasNothingToTake() {
        var state = PendingRowsState.unclaimed { [Self.row(1)] }
        let taken6 = state.take()
        #expect(taken6 == nil)
        let claimed3 = state.claim()
        #expect(claimed3 != nil, "taking did not claim it")
    }
}
