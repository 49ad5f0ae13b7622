/// A value guarded by a lock. `Synchronization.Mutex` would do, but it waits on futexes the thread
/// sanitizer cannot see, so every use reports a false race; `NSLock` is a pthread mutex it knows.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
