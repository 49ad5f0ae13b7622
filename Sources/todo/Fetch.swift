import ArgumentParser
import Dispatch
import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `todo fetch [--async]`: fetches every item sorted by createdAt and says how many and how long;
/// with `--async`, as the tutorials do, an asynchronous fetch showing "Fetched N records" as it
/// goes, which Ctrl-C cancels.
struct Fetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch every item, sorted by createdAt.",
        discussion: "With --async: an NSAsynchronousFetchRequest with live progress; Ctrl-C cancels it cleanly.")

    @Flag(name: .customLong("async"), help: "Fetch with an asynchronous fetch request, showing its progress.")
    var asynchronous = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let store = try TodoStore(options, access: .read)
        defer { store.close() }
        let context = store.container.newTodoContext()
        let started = ContinuousClock.now
        guard asynchronous else {
            let count = try await context.perform { try context.fetch(TodoStore.itemsRequest()).count }
            print("Fetched \(count) records in \(Demo.format(ContinuousClock.now - started)).")
            return
        }
        let total = try await context.perform { try context.count(for: TodoStore.itemsRequest()) }
        let bar = ProgressBar(title: "Fetched", total: total)
        let fetch = AsynchronousFetch()
        // Ctrl-C cancels the fetch's parent progress instead of killing the program.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { fetch.progress.cancel() }
        interrupt.resume()
        defer {
            interrupt.cancel()
            signal(SIGINT, SIG_DFL)
        }
        switch try await fetch.run(in: context, estimatedResultCount: total, onProgress: { bar.update($0) }) {
        case .fetched(let items):
            bar.finish(items.count)
            print("Fetched \(items.count) records in \(Demo.format(ContinuousClock.now - started)).")
        case .cancelled(let count):
            bar.show("cancelled", completed: count)
            throw TodoError("Cancelled the fetch after \(count) of \(total) records; nothing was kept.")
        }
    }
}
