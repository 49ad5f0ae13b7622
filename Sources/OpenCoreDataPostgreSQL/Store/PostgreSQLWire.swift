import OpenCoreData

// What the PostgreSQL store needs of a connection to the server, and nothing more: statements with
// bound parameters, their rows and counts, notifications. The store (schema, SQL, rows, locking)
// lives here with the other stores, behind the same contract; the wire protocol lives in the
// `OpenCoreDataPostgreSQL` product (postgres-nio), so that an app using only SQLite never builds NIO.

/// A value sent to or read from the server, in the few shapes the store's columns use.
package enum PostgreSQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case text(String)
    case bytes(Data)
}

/// What a statement returned: its rows (values by column position) and how many rows it changed.
package struct PostgreSQLResult: Sendable {
    package var rows: [[PostgreSQLValue]]
    package var affectedRows: Int

    package init(rows: [[PostgreSQLValue]], affectedRows: Int) {
        self.rows = rows
        self.affectedRows = affectedRows
    }
}

/// An error the server reported, by its SQLSTATE.
package struct PostgreSQLServerError: Error, Sendable, CustomStringConvertible {
    package var sqlState: String
    package var message: String
    package var detail: String?
    package var constraint: String?

    package init(sqlState: String, message: String, detail: String? = nil, constraint: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }

    package var description: String { "\(message) (SQLSTATE \(sqlState))" + (detail.map { ": \($0)" } ?? "") }
}

/// The connection was lost, or never made: the server cannot be reached, refused the login, or
/// went away. `reason` names what happened in words a user can act on.
package struct PostgreSQLConnectionLost: Error, Sendable, CustomStringConvertible {
    package var reason: String
    package var sqlState: String?

    package init(reason: String, sqlState: String? = nil) {
        self.reason = reason
        self.sqlState = sqlState
    }

    package var description: String { reason }
}

/// One session with the server. Calls come from one thread at a time (the store serializes them).
package protocol PostgreSQLSession: AnyObject, Sendable {
    /// Runs one statement, `$1`… bound to `binds`, and returns all its rows.
    ///
    /// - Throws: `PostgreSQLServerError` for an error the server reported;
    ///   `PostgreSQLConnectionLost` when the connection is gone.
    func run(_ sql: String, _ binds: [PostgreSQLValue]) throws -> PostgreSQLResult
    /// Calls `handler` with each payload notified on `channel`, on a thread of the driver's.
    func listen(on channel: String, _ handler: @escaping @Sendable (String) -> Void) throws
    /// Whether the connection is closed (lost or closed by `close()`).
    var isClosed: Bool { get }
    /// Closes the connection; nothing runs on it afterwards.
    func close()
}

/// Makes sessions: installed by `OpenCoreDataPostgreSQL`.
package protocol PostgreSQLDriver: Sendable {
    /// A new session with the server `endpoint` names.
    ///
    /// - Throws: `PostgreSQLConnectionLost` naming the host and port (or socket) when the server
    ///   cannot be reached or refuses the login.
    func connect(_ endpoint: PostgreSQLEndpoint) throws -> any PostgreSQLSession
}
