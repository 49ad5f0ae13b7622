import OpenCoreData

/// The store's few sessions with the server: contexts on several queues read at once, each on a
/// session of its own, and a save holds one for its transaction. A session the server dropped (a
/// restart, a network cut) is thrown away and the next call connects again.
final class PostgreSQLSessions: @unchecked Sendable {
    // @unchecked Sendable: `idle` and `open` are only touched under `condition`.
    private let driver: any PostgreSQLDriver
    let endpoint: PostgreSQLEndpoint
    private let condition = NSCondition()
    private var idle: [any PostgreSQLSession] = []
    private var open = 0
    private var closed = false
    /// The server process of each session, for cancelling its statement from another session.
    private var backends: [ObjectIdentifier: Int64] = [:]
    /// Sessions at most: enough for a few queues at once, few enough that a hundred app
    /// instances stay under a server's default connection limit with a pooler.
    private let limit: Int

    /// What each new session is wrapped in (the store's SQL log).
    private let wrap: @Sendable (any PostgreSQLSession) -> any PostgreSQLSession

    init(
        driver: any PostgreSQLDriver, endpoint: PostgreSQLEndpoint, limit: Int = 4,
        wrap: @escaping @Sendable (any PostgreSQLSession) -> any PostgreSQLSession = { $0 }
    ) {
        self.driver = driver
        self.endpoint = endpoint
        self.limit = limit
        self.wrap = wrap
    }

    /// Runs `body` on a session of its own. A read that finds its session dead (the server
    /// restarted since it was last used) runs once more on a new one: nothing was done yet.
    ///
    /// - Throws: `PostgreSQLConnectionLost` when no session can be made; the body's errors.
    func withSession<T>(_ body: (any PostgreSQLSession) throws -> T) throws -> T {
        var retried = false
        while true {
            let session = try take()
            do {
                let result = try body(session)
                give(session)
                return result
            } catch let error as PostgreSQLConnectionLost {
                drop(session)
                if retried { throw error }
                retried = true
            } catch {
                give(session)
                throw error
            }
        }
    }

    /// Runs `body` inside one transaction: committed when it returns, rolled back when it throws,
    /// so a failed save leaves nothing behind. Only a session lost before `BEGIN` is retried: after
    /// that, whether anything was written is the server's to say, and it rolled back.
    func transaction<T>(_ body: (any PostgreSQLSession) throws -> T) throws -> T {
        var retried = false
        while true {
            let session = try take()
            do {
                _ = try session.run("BEGIN", [])
            } catch let error as PostgreSQLConnectionLost {
                drop(session)
                if retried { throw error }
                retried = true
                continue
            } catch {
                give(session)
                throw error
            }
            do {
                let result = try body(session)
                _ = try session.run("COMMIT", [])
                give(session)
                return result
            } catch let error as PostgreSQLConnectionLost {
                drop(session)
                throw error
            } catch {
                if (try? session.run("ROLLBACK", [])) != nil { give(session) } else { drop(session) }
                throw error
            }
        }
    }

    /// The server process serving `session` (`pg_backend_pid()`), asked once per session.
    func backendPID(of session: any PostgreSQLSession) throws -> Int64 {
        let id = ObjectIdentifier(session)
        if let known = condition.withLock({ backends[id] }) { return known }
        let pid = try session.run("SELECT pg_backend_pid()", []).rows.first.flatMap { $0.first }.flatMap(PostgreSQLValues.integer) ?? 0
        condition.withLock { backends[id] = pid }
        return pid
    }

    /// Asks the server to cancel the statement its process `pid` runs, over a connection of its
    /// own (the pool's may all be busy reading).
    func cancelStatement(ofBackend pid: Int64) {
        guard let session = try? driver.connect(endpoint) else { return }
        _ = try? session.run("SELECT pg_cancel_backend($1::int4)", [.integer(pid)])
        session.close()
    }

    /// Closes every session; later calls fail.
    func closeAll() {
        condition.lock()
        closed = true
        let sessions = idle
        idle = []
        condition.broadcast()
        condition.unlock()
        for session in sessions { session.close() }
    }

    private func take() throws -> any PostgreSQLSession {
        condition.lock()
        while true {
            if closed {
                condition.unlock()
                throw PostgreSQLConnectionLost(reason: "The PostgreSQL store at \(endpoint) was removed from its coordinator.")
            }
            while let session = idle.popLast() {
                if !session.isClosed {
                    condition.unlock()
                    return session
                }
                open -= 1
            }
            if open < limit { break }
            condition.wait()
        }
        open += 1
        condition.unlock()
        do {
            let session = wrap(try driver.connect(endpoint))
            // Every statement names tables unqualified: the store's schema comes first.
            _ = try session.run("SET search_path TO \(endpoint.schema)", [])
            return session
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(_ session: any PostgreSQLSession) {
        condition.lock()
        if closed {
            open -= 1
            condition.unlock()
            session.close()
            return
        }
        idle.append(session)
        condition.signal()
        condition.unlock()
    }

    private func drop(_ session: any PostgreSQLSession) {
        session.close()
        condition.lock()
        backends[ObjectIdentifier(session)] = nil
        open -= 1
        condition.signal()
        condition.unlock()
    }
}
