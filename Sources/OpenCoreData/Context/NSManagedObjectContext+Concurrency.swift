/// The async form of `perform`, and Core Data's concurrency debugging.
extension NSManagedObjectContext {
    /// When an async `perform` runs its block.
    public enum ScheduledTaskType: Sendable {
        /// Run at once if the caller is already on the context's queue, else enqueue.
        case immediate
        /// Always enqueue behind the work already on the queue.
        case enqueued
    }

    /// Runs `block` on the context's queue, processes the pending changes it made, and returns its
    /// value to the async caller.
    ///
    /// A block that does not throw needs no `try`; one that throws rethrows its error, as Core
    /// Data's `rethrows` signature does (here through typed throws). The block is `@Sendable`, as
    /// in Core Data: it runs on the context's queue, so one written in main-actor code is not
    /// isolated to the main actor, and may capture what is `Sendable` (the context, object IDs).
    /// `@preconcurrency`, as Core Data's: code in Swift 5 mode is not told about its captures.
    ///
    /// - Parameters:
    ///   - schedule: `.immediate` (the default) runs `block` at once when the caller is already on
    ///     the context's queue; `.enqueued` always queues it behind the work already there.
    ///   - block: The work to run on the context's queue. It takes no arguments; its return value
    ///     is handed back to the caller.
    /// - Returns: The value `block` returned.
    /// - Throws: The error `block` threw, unchanged; nothing when `block` cannot throw.
    @preconcurrency
    public func perform<T, E: Error>(
        schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        if schedule == .immediate, isOnQueue || queue == nil {
            defer { processPendingChanges() }
            return try block()
        }
        let result: UncheckedTransfer<Result<T, E>> = await withCheckedContinuation { continuation in
            let run = { @Sendable in
                let outcome: Result<T, E>
                do throws(E) { outcome = .success(try block()) } catch { outcome = .failure(error) }
                // As the block form does: what the block changed is processed before the caller resumes.
                self.processPendingChanges()
                continuation.resume(returning: UncheckedTransfer(outcome))
            }
            queue!.async(execute: run)
        }
        return try result.value.get()
    }

    /// Whether `-com.apple.CoreData.ConcurrencyDebug 1` or `OPENCOREDATA_CONCURRENCY_DEBUG=1` is set.
    static let concurrencyDebug: Bool = {
        if ProcessInfo.processInfo.environment["OPENCOREDATA_CONCURRENCY_DEBUG"] == "1" { return true }
        let arguments = ProcessInfo.processInfo.arguments
        if let index = arguments.firstIndex(of: "-com.apple.CoreData.ConcurrencyDebug"), index + 1 < arguments.count {
            return arguments[index + 1] == "1"
        }
        return false
    }()

    /// With concurrency debugging on, stops the program when `call` runs off the context's queue.
    @inline(__always)
    func assertOnQueue(_ call: @autoclosure () -> String, object: NSManagedObject? = nil) {
        guard NSManagedObjectContext.concurrencyDebug, !isOnQueue else { return }
        concurrencyViolation(call(), object: object)
    }

    private func concurrencyViolation(_ call: String, object: NSManagedObject?) -> Never {
        let about = object.map { " on object \($0.entity.name ?? "?") \($0.objectID.uriRepresentation().absoluteString)" } ?? ""
        let message = "CoreData concurrency violation: \(call)\(about) called off the queue of context '\(name ?? "unnamed")' (\(concurrencyType))."
        FileHandle.standardError.write(Data((message + "\n").utf8))
        preconditionFailure(message)
    }
}

/// Carries a value to the context's queue and back. The context's queue is the only place the value
/// is used meanwhile, which is the contract `perform` gives its block.
struct UncheckedTransfer<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value is used on one queue at a time, handed over by `perform`.
    let value: Value
    init(_ value: Value) { self.value = value }
}
