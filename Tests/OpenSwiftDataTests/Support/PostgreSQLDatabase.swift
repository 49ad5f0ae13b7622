import Foundation
import PostgreSQLScratchServer
import Testing

/// Store URLs on the test process's throwaway PostgreSQL server, a schema per test. Without
/// PostgreSQL's programs the tests that need it are cancelled, never passed.
enum PostgreSQLDatabase {
    /// A `postgres://` URL, over TCP with the password, of a new schema: what an app on another
    /// machine would be given.
    static func newStoreURL() throws -> URL {
        #if PostgreSQL
        switch PostgreSQLScratchServer.shared {
        case .success(let server): return server.tcpURL(schema: PostgreSQLScratchServer.newSchemaName())
        case .failure(let reason): try Test.cancel("skipped: install postgresql (initdb, pg_ctl on PATH): \(reason)")
        }
        #else
        try Test.cancel("skipped: built without the package's PostgreSQL trait (postgres-nio)")
        #endif
    }
}
