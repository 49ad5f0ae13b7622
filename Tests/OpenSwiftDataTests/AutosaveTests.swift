import Foundation
import Synchronization
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The main context saves by itself at the main actor's next turn after a change.
@Suite struct AutosaveTests {
    let folder = TemporaryDirectory()

    @MainActor @Test func theMainContextSavesAChangeByItself() async throws {
        let url = folder.file("auto.store")
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        #expect(context.autosaveEnabled && container.mainContext === context)
        var observer: (any NSObjectProtocol)?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(continuation)
            observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { _ in once.resume() }
            context.insert(Trip(name: "Saved by itself"))
        }
        if let observer { NotificationCenter.default.removeObserver(observer) }
        #expect(!context.hasChanges)
        let other = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        #expect(try other.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Saved by itself"])
    }

    @Test func aContextWithAutosaveSavesBeforeItIsReleased() throws {
        let url = folder.file("released.store")
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        do {
            let context = ModelContext(container)
            context.autosaveEnabled = true
            context.insert(Trip(name: "Kept"))
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }
}

/// Resumes a continuation the first time it is asked to.
final class ResumeOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = Mutex(continuation) }

    func resume() {
        continuation.withLock { pending in
            pending?.resume()
            pending = nil
        }
    }
}
