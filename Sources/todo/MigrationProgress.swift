import OpenCoreData

/// The bar of a migration that opening the store runs: Core Data reports it to the `Progress`
/// current on the thread that loads the store, which this makes current; on Linux a `Progress`
/// has no key-value observing, so a thread of its own reads it until the load returns. Nothing is
/// shown when the store needed no migration. The bar goes to standard error: it is not the
/// command's output.
final class MigrationProgress: @unchecked Sendable {
    // @unchecked Sendable: `bar` is only touched under `lock`; `Progress` and the semaphores are
    // thread-safe.
    private let progress = Progress(totalUnitCount: 100)
    private let lock = NSLock()
    private var bar: ProgressBar?
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Runs `load` with the migration's progress followed.
    static func following<T>(_ load: () throws -> T) rethrows -> T {
        let follower = MigrationProgress()
        follower.progress.becomeCurrent(withPendingUnitCount: 100)
        defer { follower.finish() }
        return try load()
    }

    private init() {
        Thread.detachNewThread { [self] in
            // Woken at once when the load returns, so that a load without migration waits for nothing.
            while wake.wait(timeout: .now() + .milliseconds(50)) == .timedOut { draw() }
            stopped.signal()
        }
    }

    private func draw() {
        let percent = Int(progress.fractionCompleted * 100)
        lock.withLock {
            guard percent > 0 || bar != nil else { return }
            shownBar().update(percent)
        }
    }

    private func finish() {
        wake.signal()
        stopped.wait()
        // Read before resigning: resigning completes the pending units when no migration made
        // a child, which would look like a finished migration.
        let fraction = progress.fractionCompleted
        progress.resignCurrent()
        guard fraction > 0 else { return }
        // A migration shorter than one look still gets its line.
        lock.withLock { shownBar().finish(Int(fraction * 100)) }
    }

    /// The bar, made when first shown; call under `lock`.
    private func shownBar() -> ProgressBar {
        if let bar { return bar }
        let made = ProgressBar(title: "migrating the store to the current model", total: 100, toStandardError: true)
        bar = made
        return made
    }
}
