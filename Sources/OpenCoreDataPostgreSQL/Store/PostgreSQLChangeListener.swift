import Dispatch
import OpenCoreData

/// Tells when any coordinator, in any process on any machine, committed to a PostgreSQL store:
/// every save notifies the store's channel inside its transaction (`pg_notify`, delivered only
/// if it commits), and this listener, on a session of its own, hears it. For
/// `NSPersistentStoreRemoteChange`.
///
/// A listening session the server dropped (a restart, a network cut) is replaced within
/// `checkInterval`, and one change is announced then: commits made while nobody listened are
/// not lost to the app, only merged into one.
final class PostgreSQLChangeListener: @unchecked Sendable {
    /// How often the listener checks that its session is still open.
    static let checkInterval: DispatchTimeInterval = .seconds(1)

    // @unchecked Sendable: `session` and `timer` are touched only on `queue`.
    private let queue = DispatchQueue(label: "com.apple.coredata.NSPersistentStoreRemoteChangeNotification.\(UUID().uuidString)")
    private let connect: @Sendable () throws -> any PostgreSQLSession
    private let channel: String
    private let onChange: @Sendable (String?) -> Void
    private var session: (any PostgreSQLSession)?
    private var timer: (any DispatchSourceTimer)?
    private var stopped = false

    /// The channel a store's saves notify: one per schema, so stores of one database stay apart.
    static func channel(for endpoint: PostgreSQLEndpoint) -> String { "opencoredata_\(endpoint.schema)" }

    /// Starts listening; `onChange` runs on a background queue after each commit, with the
    /// notification's payload (nil for commits that may have been missed while reconnecting).
    ///
    /// - Throws: The connection's error when the first session cannot be made.
    init(channel: String, connect: @escaping @Sendable () throws -> any PostgreSQLSession, onChange: @escaping @Sendable (String?) -> Void) throws {
        self.channel = channel
        self.connect = connect
        self.onChange = onChange
        try queue.sync { try listen() }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.checkInterval, repeating: Self.checkInterval)
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
        queue.sync { self.timer = timer }
    }

    private func listen() throws {
        let session = try connect()
        // The driver calls back on its own threads; the app's observers run on this queue.
        try session.listen(on: channel) { [weak self] payload in
            guard let self else { return }
            self.queue.async { if !self.stopped { self.onChange(payload) } }
        }
        self.session = session
    }

    private func check() {
        guard !stopped, session?.isClosed != false else { return }
        session?.close()
        session = nil
        guard (try? listen()) != nil else { return }
        onChange(nil)
    }

    deinit {
        timer?.cancel()
        session?.close()
    }

    /// Stops listening and closes the session.
    func stop() {
        queue.sync {
            stopped = true
            timer?.cancel()
            timer = nil
            session?.close()
            session = nil
        }
    }
}
