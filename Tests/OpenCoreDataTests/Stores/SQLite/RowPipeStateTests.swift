import Foundation
import Testing

@testable import OpenCoreData

/// The lifecycle of a pipelined batch insert between the thread that makes rows and the one that
/// writes them, transition by transition: filling → closed → writer stopped, or filling → writer
/// stopped by an error; buffers go round in order.
@Suite struct RowPipeStateTests {
    typealias State = RowPipeState<[Int]>
    struct WriteFailed: Error {}

    static func buffer(_ found: State.ForMaker) -> [Int]? {
        if case .buffer(let buffer) = found { return buffer }
        return nil
    }

    static func rows(_ found: State.ForWriter) -> ([Int], Int)? {
        if case .rows(let buffer, let count) = found { return (buffer, count) }
        return nil
    }

    static func describe(_ found: State.ForWriter) -> String {
        switch found {
        case .rows(let buffer, let count): "rows \(buffer) \(count)"
        case .wait: "wait"
        case .end: "end"
        }
    }

    static func describe(_ found: State.ForMaker) -> String {
        switch found {
        case .buffer(let buffer): "buffer \(buffer)"
        case .wait: "wait"
        case .stop: "stop"
        }
    }

    @Test func theMakerGetsEachEmptyBufferThenWaitsForOneBack() {
        var state = State(empty: [[1], [2]])
        let first = state.takeEmpty()
        let second = state.takeEmpty()
        let third = state.takeEmpty()
        #expect(Self.buffer(first) == [2])
        #expect(Self.buffer(second) == [1])
        #expect(Self.describe(third) == "wait")
        state.giveBack([3])
        let fourth = state.takeEmpty()
        #expect(Self.buffer(fourth) == [3])
    }

    @Test func theWriterTakesFullBuffersInOrderAndWaitsWhileTheMakerFills() {
        var state = State(empty: [])
        let before = state.take()
        #expect(Self.describe(before) == "wait")
        state.put([1, 1], count: 2)
        state.put([2, 0], count: 1)
        let first = state.take()
        let second = state.take()
        let third = state.take()
        #expect(Self.rows(first).map { $0.0 } == [1, 1])
        #expect(Self.rows(first)?.1 == 2)
        #expect(Self.rows(second)?.1 == 1)
        #expect(Self.describe(third) == "wait")
    }

    @Test func closingLetsTheWriterDrainThenEnd() {
        var state = State(empty: [])
        state.put([7], count: 1)
        state.close()
        guard case .closed = state.phase else { Issue.record("\(state.phase)"); return }
        let drained = state.take()
        let after = state.take()
        #expect(Self.rows(drained)?.0 == [7])
        #expect(Self.describe(after) == "end")
        let early = state.finish()
        guard case .wait = early else { Issue.record("finished before the writer stopped"); return }
        state.writerStopped(nil)
        guard case .done(let error) = state.finish() else { Issue.record("not done"); return }
        #expect(error == nil)
    }

    @Test func aWriterErrorStopsTheMakerAndSurvivesTheClose() {
        var state = State(empty: [[0]])
        state.put([5], count: 1)
        state.writerStopped(WriteFailed())
        let found = state.takeEmpty()
        #expect(Self.describe(found) == "stop", "the maker makes no more rows")
        state.close()
        guard case .writerStopped(let kept) = state.phase else { Issue.record("\(state.phase)"); return }
        #expect(kept is WriteFailed)
        guard case .done(let error) = state.finish() else { Issue.record("not done"); return }
        #expect(error is WriteFailed)
        // The unwritten buffer was dropped by finish: nothing is left for a writer.
        let left = state.take()
        #expect(Self.describe(left) == "end")
    }
}
