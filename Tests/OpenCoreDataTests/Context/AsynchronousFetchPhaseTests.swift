import Foundation
import Testing

@testable import OpenCoreData

/// The phases of an asynchronous fetch of objects on its context's queue, transition by
/// transition: what each event does in each phase, and that an ended fetch stays ended.
@Suite struct AsynchronousFetchPhaseTests {
    typealias Phase = AsynchronousFetchPhase

    static func describe(_ phase: Phase) -> String {
        switch phase {
        case .registering(let readDone, let queued): "registering(readDone: \(readDone), queued: \(queued))"
        case .publishing(let pages, let done): "publishing(\(pages.count) pages, done: \(done))"
        case .replacing(let runs, let run, let position): "replacing(\(runs), run: \(run), position: \(position))"
        case .ended: "ended"
        }
    }

    @Test func rowsRegisterAtOnceUnlessABlockIsQueued() {
        #expect(Phase.start.registersNow)
        #expect(!Phase.registering(readDone: false, queued: true).registersNow)
        #expect(!Phase.publishing(pages: [], done: 0).registersNow)
        #expect(!Phase.ended.registersNow)
    }

    @Test func theEndOfTheReadRegistersUnlessABlockWillDoIt() {
        var phase = Phase.start
        let registers1 = phase.readFinished()
        #expect(registers1)
        #expect(Self.describe(phase) == "registering(readDone: true, queued: false)")

        phase = .registering(readDone: false, queued: true)
        let registers2 = phase.readFinished()
        #expect(!registers2)
        #expect(Self.describe(phase) == "registering(readDone: true, queued: true)")

        phase = .ended
        let registers3 = phase.readFinished()
        #expect(!registers3)
        #expect(phase.isEnded)
    }

    @Test func aSliceThatRunsOutQueuesOneBlock() {
        var phase = Phase.start
        let queues1 = phase.yieldRegistration()
        #expect(queues1)
        #expect(Self.describe(phase) == "registering(readDone: false, queued: true)")
        let queues2 = phase.yieldRegistration()
        #expect(!queues2, "one queued block is enough")
        let goesOn1 = phase.resumeRegistration()
        #expect(goesOn1)
        #expect(Self.describe(phase) == "registering(readDone: false, queued: false)")
        let goesOn2 = phase.resumeRegistration()
        #expect(!goesOn2, "a block runs once")

        phase = .ended
        let queues3 = phase.yieldRegistration()
        #expect(!queues3)
        let goesOn3 = phase.resumeRegistration()
        #expect(!goesOn3, "a block queued before the end does nothing")
        #expect(phase.isEnded)
    }

    @Test func publishingBeginsWhenRegistrationCatchesUpWithAFinishedRead() {
        var asked = 0
        var phase = Phase.start
        let publishes1 = phase.caughtUp { asked += 1; return [] }
        #expect(!publishes1)
        #expect(asked == 0, "pages are gathered only when publishing begins")
        #expect(Self.describe(phase) == "registering(readDone: false, queued: false)")

        phase = .registering(readDone: true, queued: false)
        let publishes2 = phase.caughtUp { asked += 1; return [] }
        #expect(publishes2)
        #expect(asked == 1)
        #expect(Self.describe(phase) == "publishing(0 pages, done: 0)")

        phase = .ended
        let publishes3 = phase.caughtUp { asked += 1; return [] }
        #expect(!publishes3)
        #expect(asked == 1)
    }

    @Test func replacingFollowsPublishingOnlyWhenSomethingWasTaken() {
        var phase = Phase.publishing(pages: [], done: 0)
        let replaces1 = phase.published(replacing: nil)
        #expect(!replaces1)
        #expect(Self.describe(phase) == "publishing(0 pages, done: 0)")
        let replaces2 = phase.published(replacing: [3..<5, 8..<9])
        #expect(replaces2)
        #expect(Self.describe(phase) == "replacing([Range(3..<5), Range(8..<9)], run: 0, position: 3)")

        phase = .registering(readDone: true, queued: false)
        let replaces3 = phase.published(replacing: [0..<1])
        #expect(!replaces3)
    }

    @Test func everyPhaseEnds() {
        for var phase in [Phase.start, .registering(readDone: true, queued: true), .publishing(pages: [], done: 0), .replacing(runs: [], run: 0, position: 0), .ended] {
            phase.end()
            #expect(phase.isEnded)
        }
    }
}
