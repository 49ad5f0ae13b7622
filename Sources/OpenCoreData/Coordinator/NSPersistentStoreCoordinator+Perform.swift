import Dispatch

/// Core Data's `perform` and `performAndWait` on a coordinator: code that works with the
/// coordinator directly (adding, removing or destroying stores, reading metadata) runs its blocks
/// one at a time through them.
///
/// The blocks are serialized with each other, and a block may call `performAndWait` again (it
/// runs at once). Unlike Core Data, they are not serialized with the coordinator's own work for
/// contexts: each of the coordinator's operations guards itself, so a context that fetches while
/// a block runs is not held up, and a block that waits for a context cannot deadlock with it.
extension NSPersistentStoreCoordinator {
    /// Runs `block` on the coordinator's queue, after the blocks given before it, and returns at
    /// once.
    ///
    /// - Parameter block: The work to run; it takes no arguments and returns nothing.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        performQueue.async { self.performAndWait(block) }
    }

    /// Runs `block` on the calling thread, once no other block of the coordinator runs, and
    /// returns its value.
    ///
    /// - Parameter block: The work to run; it may call `performAndWait` again.
    /// - Returns: The value `block` returned.
    /// - Throws: The error `block` threw, unchanged.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        performLock.lock()
        defer { performLock.unlock() }
        return try block()
    }

    /// Runs `block` after the blocks given before it, and returns its value to the async caller.
    /// The block is `@Sendable` and the method `@preconcurrency`, as Core Data declares them.
    ///
    /// - Parameter block: The work to run.
    /// - Returns: The value `block` returned.
    /// - Throws: The error `block` threw, unchanged; nothing when `block` cannot throw.
    @preconcurrency
    public func perform<T, E: Error>(_ block: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: UncheckedTransfer<Result<T, E>> = await withCheckedContinuation { continuation in
            performQueue.async {
                let outcome: Result<T, E> = self.performAndWait {
                    do throws(E) { return .success(try block()) } catch { return .failure(error) }
                }
                continuation.resume(returning: UncheckedTransfer(outcome))
            }
        }
        return try result.value.get()
    }
}
