import OpenCoreData

/// The keys of the names in `ATRANSACTIONSTRING` (authors, context names, bundle and process names)
/// that a store has seen committed, so that a save does not ask the server for the same few names
/// every time: rows there are never deleted, so a committed key stays right.
///
/// A key read or added inside a transaction is only staged for that transaction's session, and
/// becomes known when the transaction commits: a rolled-back row must not be cached.
final class PostgreSQLHistoryNames: Sendable {
    private struct State {
        var committed: [String: Int64] = [:]
        var staged: [ObjectIdentifier: [String: Int64]] = [:]
    }

    private let state = Locked(State())

    /// The key of `name`, committed or staged by the transaction on `session`.
    func key(of name: String, on session: any PostgreSQLSession) -> Int64? {
        state.withLock { $0.committed[name] ?? $0.staged[ObjectIdentifier(session)]?[name] }
    }

    /// Remembers `key` for `name` once the transaction on `session` commits.
    func stage(_ name: String, key: Int64, on session: any PostgreSQLSession) {
        state.withLock { $0.staged[ObjectIdentifier(session), default: [:]][name] = key }
    }

    /// The transaction on `session` committed (`true`) or rolled back: its keys become known, or go.
    func end(on session: any PostgreSQLSession, committed: Bool) {
        state.withLock { state in
            guard let staged = state.staged.removeValue(forKey: ObjectIdentifier(session)), committed else { return }
            state.committed.merge(staged) { known, _ in known }
        }
    }
}
