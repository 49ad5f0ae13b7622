import Foundation
import Synchronization

/// Forwards the SQL of executed statements to an observer, when one is set.
package final class SQLStatementLog: @unchecked Sendable {
    package init() {}
    // @unchecked Sendable: `observer` is only touched under `lock`; `observing` is atomic.
    private let lock = NSLock()
    private var observer: (@Sendable (String) -> Void)?
    /// Whether `observer` is set, read without the lock by every statement.
    private let observing = Atomic<Bool>(false)

    /// Starts (or, with nil, stops) sending each statement's SQL to `observer`, on the thread
    /// that runs the statement.
    func observe(_ observer: (@Sendable (String) -> Void)?) {
        lock.lock()
        self.observer = observer
        observing.store(observer != nil, ordering: .releasing)
        lock.unlock()
    }

    /// Sends a statement's SQL to the observer. The text is built only when someone observes:
    /// GRDB trims it through Foundation on every execution, which cost more than the INSERT it
    /// described (half the time of a million-row batch insert).
    package func record(_ sql: @autoclosure () -> String) {
        guard observing.load(ordering: .acquiring) else { return }
        lock.lock()
        let observer = self.observer
        lock.unlock()
        if let observer { observer(sql()) }
    }
}
