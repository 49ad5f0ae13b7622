import Foundation

/// Records the notifications of one name while alive; safe to read from any thread.
final class NotificationRecorder: @unchecked Sendable {
    // @unchecked Sendable: `received` is only touched under `lock`.
    private let lock = NSLock()
    private var received: [Notification] = []
    private var token: (any NSObjectProtocol)?
    /// Waiters for a count of notifications, resumed when it is reached.
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Records the notifications named `name` (from `object`, if given) for which `matching` holds.
    init(_ name: Notification.Name, object: AnyObject? = nil, matching: (@Sendable (Notification) -> Bool)? = nil) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            guard let self, matching?(note) ?? true else { return }
            self.lock.lock()
            self.received.append(note)
            let count = self.received.count
            let ready = self.waiters.filter { $0.count <= count }
            self.waiters.removeAll { $0.count <= count }
            self.lock.unlock()
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    var notifications: [Notification] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Returns once `count` notifications have been received (at once if they have).
    func waitUntilReceived(_ count: Int) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if received.count >= count {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append((count, continuation))
                lock.unlock()
            }
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }
}
