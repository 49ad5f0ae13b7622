import OpenCoreData

/// The server's and the connection's errors as Core Data's `NSError`s.
enum PostgreSQLErrors {
    /// The user-info key of the server's SQLSTATE code in the errors the store reports.
    static let sqlStateKey = "PostgreSQLState"
    /// The user-info key naming the server (`host:port`, or its socket folder).
    static let serverKey = "PostgreSQLServer"

    /// `error` as Core Data reports it: a lost or refused connection is
    /// `NSPersistentStoreOpenError` while opening and `NSPersistentStoreOperationError` later, a
    /// statement cancelled by `statement_timeout` `NSPersistentStoreTimeoutError`, anything else
    /// the server reports `NSPersistentStoreOperationError` with its SQLSTATE. Core Data's own
    /// errors pass unchanged.
    static func translate(_ error: any Error, endpoint: PostgreSQLEndpoint, opening: Bool) -> any Error {
        var info: [String: Any] = [serverKey: endpoint.description]
        switch error {
        case let lost as PostgreSQLConnectionLost:
            if let state = lost.sqlState { info[sqlStateKey] = state }
            return CoreDataError.make(opening ? NSPersistentStoreOpenError : NSPersistentStoreOperationError, lost.reason, userInfo: info)
        case let server as PostgreSQLServerError:
            info[sqlStateKey] = server.sqlState
            if server.sqlState == "57014" {
                return CoreDataError.make(
                    NSPersistentStoreTimeoutError, "The PostgreSQL server at \(endpoint) cancelled a statement that ran past statement_timeout.",
                    userInfo: info)
            }
            return CoreDataError.make(
                opening ? NSPersistentStoreOpenError : NSPersistentStoreOperationError,
                "The PostgreSQL server at \(endpoint) refused a statement of the store in schema '\(endpoint.schema)': \(server).",
                userInfo: info)
        default:
            return error
        }
    }
}
