import ArgumentParser
import Dispatch
import Foundation
import OpenCoreData

/// `todo watch`: follows the store and prints each change another process makes, as it is
/// committed, until interrupted (Ctrl-C). Built on persistent history and remote change
/// notifications, as an app's extension follows its app's store.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each change other processes make to the list, until interrupted (Ctrl-C).")

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let store = try TodoStore(at: try options.location(), access: .create, createFolder: options.isDefaultLocation, watching: true)
        defer { store.close() }
        let follower = try ChangeFollower(store: store)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: store.container.persistentStoreCoordinator, queue: nil
        ) { _ in follower.catchUp() }
        defer { NotificationCenter.default.removeObserver(observer) }
        Watch.emit("Watching \(store.location.displayName); press Ctrl-C to stop.")
        await Watch.untilInterrupted()
    }

    /// Prints `line` at once, unbuffered: standard output may be a file or a pipe, where
    /// `print` would hold it back.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Returns when the process gets SIGINT or SIGTERM.
    static func untilInterrupted() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "todo.watch.signals")
            let resumed = Resumed()
            var sources: [DispatchSourceSignal] = []
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if resumed.once() { continuation.resume() }
                }
                source.resume()
                sources.append(source)
            }
            // The sources must outlive this closure; the process ends soon after they fire.
            Watch.signalSources = sources
        }
    }

    nonisolated(unsafe) private static var signalSources: [DispatchSourceSignal] = []
}

/// True the first time only.
private final class Resumed: @unchecked Sendable {
    // @unchecked Sendable: the flag is touched on one serial queue.
    private var done = false
    func once() -> Bool {
        defer { done = true }
        return !done
    }
}
