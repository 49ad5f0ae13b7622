import Foundation

/// Records the notifications of one name while alive; safe to read from any thread.
final class NotificationRecorder: @unchecked Sendable {
    // @unchecked Sendable: `received` is only touched under `lock`.
    private let lock = NSLock()
    private var received: [Notification] = []
    private var token: (any NSObjectProtocol)?

    init(_ name: Notification.Name, object: AnyObject? = nil) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            guard let self else { return }
            self.lock.lock()
            self.received.append(note)
            self.lock.unlock()
        }
    }

    var notifications: [Notification] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }
}
