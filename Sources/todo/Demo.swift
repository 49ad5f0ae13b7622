import ArgumentParser
import OpenCoreData

/// `todo demo`: the tutorials' walkthrough in a fresh store, ending with a table of what each step
/// did and how long it took.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk through the tutorials in a fresh store: populate, fetch asynchronously, cancel a fetch, check all, clear done, watch another process.")

    /// The walkthrough, in order; each step is one row of the table.
    static var steps: [DemoStep] {
        [.openStack, .populate, .asynchronousFetch, .cancelledFetch, .toggleItems, .checkAll, .clearDone, .watch]
    }

    @Option(help: "How many items to populate.")
    var count = 100_000

    @Flag(help: "Keep the store at the end, for `todo list --store PATH`.")
    var keep = false

    /// `--store PATH`: make the demo's store there (a new file, kept at the end) instead of in a
    /// temporary folder. The option group every command shares, so that `todo --store PATH demo`
    /// means the same.
    @OptionGroup var options: StoreOptions

    private var storePath: String? { options.path }

    func validate() throws {
        if count < 1 { throw ValidationError("--count must be at least 1.") }
    }

    func run() async throws {
        let location: StoreLocation
        var temporaryFolder: URL?
        if storePath != nil {
            location = try options.location()
            if case .file(let url) = location, FileManager.default.fileExists(atPath: url.path) {
                throw TodoError("The demo makes a new store, and \(url.path) already exists.")
            }
        } else {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todo-demo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            location = .file(folder.appendingPathComponent("Done.sqlite"))
            temporaryFolder = folder
        }
        let kept = keep || storePath != nil
        let run = DemoRun(location: location, count: count)
        defer {
            run.store?.close()
            if !kept, let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
        }

        print("todo demo: the Core Data tutorials' to-do app, on OpenCoreData")
        print("store: \(location.displayName)\n")
        let clock = ContinuousClock()
        var rows: [(step: String, what: String, time: Duration)] = []
        for step in Demo.steps {
            let started = clock.now
            let what = try await step.run(run)
            rows.append((step.name, what, clock.now - started))
        }
        print("")
        Demo.printTable(rows)
        if kept { print("\nKept the store: todo list --store \(location.displayName) --limit 10") }
    }

    /// step, what it did, time; and the total.
    static func printTable(_ rows: [(step: String, what: String, time: Duration)]) {
        let total = rows.reduce(Duration.zero) { $0 + $1.time }
        let all = rows.map { ($0.step, $0.what, format($0.time)) } + [("total", "", format(total))]
        let stepWidth = all.map(\.0.count).max() ?? 0
        let whatWidth = all.map(\.1.count).max() ?? 0
        let timeWidth = all.map(\.2.count).max() ?? 0
        func line(_ step: String, _ what: String, _ time: String) -> String {
            step.padding(toLength: stepWidth, withPad: " ", startingAt: 0) + "  "
                + what.padding(toLength: whatWidth, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: timeWidth - time.count) + time
        }
        print(line("step", "what it did", "time"))
        for (step, what, time) in all { print(line(step, what, time)) }
    }

    /// `42 ms` under a second, `3.91 s` from there.
    static func format(_ duration: Duration) -> String {
        let seconds = ProgressBar.seconds(duration)
        return seconds < 1 ? String(format: "%.0f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }
}
