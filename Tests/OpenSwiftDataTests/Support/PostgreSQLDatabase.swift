import Foundation
import PostgreSQLScratchServer
import Testing

/// The test process's throwaway PostgreSQL server, started on first use; each test a schema of
/// its own. Without PostgreSQL's programs the tests that need it are cancelled, never passed.
enum PostgreSQLDatabase {
    static let server: Result<PostgreSQLScratchServer, PostgreSQLScratchServer.Unavailable> = {
        do {
            return .success(try PostgreSQLScratchServer.launch())
        } catch let error as PostgreSQLScratchServer.Unavailable {
            return .failure(error)
        } catch {
            return .failure(PostgreSQLScratchServer.Unavailable(description: "\(error)"))
        }
    }()

    /// A `postgres://` URL, over TCP with the password, of a new schema: what an app on another
    /// machine would be given.
    static func newStoreURL() throws -> URL {
        #if PostgreSQL
        switch server {
        case .success(let server): return server.tcpURL(schema: PostgreSQLScratchServer.newSchemaName())
        case .failure(let reason): try Test.cancel("skipped: install postgresql (initdb, pg_ctl on PATH): \(reason)")
        }
        #else
        try Test.cancel("skipped: built without the package's PostgreSQL trait (postgres-nio)")
        #endif
    }
}
