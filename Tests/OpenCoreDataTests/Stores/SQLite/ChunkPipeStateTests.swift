import Foundation
import Testing

@testable import OpenCoreData

/// The lifecycle of a chunked read between its reading thread and its caller, transition by
/// transition: reading → (stopping →) finished, and the chunks handed over in order.
@Suite struct ChunkPipeStateTests {
    typealias State = ChunkPipeState<Int>

    static func chunk(_ taken: State.Taken) -> [Int]? {
        if case .chunk(let elements) = taken { return elements }
        return nil
    }

    static func waits(_ taken: State.Taken) -> Bool {
        if case .wait = taken { return true }
        return false
    }

    static func ended(_ taken: State.Taken) -> (any Error)?? {
        if case .end(let error) = taken { return .some(error) }
        return nil
    }

    @Test func chunksComeInOrderThenTheEnd() {
        var state = State()
        let taken1 = state.take()
        #expect(Self.waits(taken1), "nothing read yet")
        state.put([1, 2])
        state.put([3])
        let taken2 = state.take()
        #expect(Self.chunk(taken2) == [1, 2])
        state.put([4])
        let taken3 = state.take()
        #expect(Self.chunk(taken3) == [3])
        let taken4 = state.take()
        #expect(Self.chunk(taken4) == [4])
        let taken5 = state.take()
        #expect(Self.waits(taken5), "the reader has not finished")
        state.finish(nil)
        #expect(state.isFinished)
        let taken6 = state.take()
        #expect(Self.ended(taken6) != nil)
        let taken7 = state.take()
        #expect(Self.ended(taken7)! == nil, "no error")
    }

    @Test func chunksReadBeforeTheEndAreTakenFirst() {
        var state = State()
        state.put([1])
        state.finish(nil)
        let taken8 = state.take()
        #expect(Self.chunk(taken8) == [1])
        let taken9 = state.take()
        #expect(Self.ended(taken9) != nil)
    }

    @Test func theReadersErrorComesAfterItsChunks() {
        var state = State()
        state.put([1])
        state.finish(CocoaError(.fileReadCorruptFile))
        let taken10 = state.take()
        #expect(Self.chunk(taken10) == [1])
        let error = Self.ended(state.take())
        #expect((error ?? nil) as? CocoaError == CocoaError(.fileReadCorruptFile))
    }

    @Test func stoppingAsksTheReaderToStopUntilItHasFinished() {
        var state = State()
        #expect(!state.isStopping)
        state.stop()
        #expect(state.isStopping)
        #expect(!state.isFinished, "the caller still waits for the reader")
        state.finish(nil)
        #expect(state.isFinished)
        #expect(!state.isStopping)
        state.stop()
        #expect(state.isFinished, "a finished read stays finished")
    }
}
