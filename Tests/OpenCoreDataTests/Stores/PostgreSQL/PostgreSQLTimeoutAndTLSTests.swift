import Foundation
import PostgreSQLScratchServer
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// The URL's `statement_timeout` and `sslmode` do what libpq's do: a statement that runs past the
/// timeout fails with `NSPersistentStoreTimeoutError` and the store goes on working; `require`
/// encrypts without checking the certificate, `verify-full` refuses one no authority signed, and a
/// server without TLS is refused when TLS is required.
@Suite struct PostgreSQLTimeoutAndTLSTests {
    private func context(_ url: URL) throws -> NSManagedObjectContext { try PostgreSQLStack.context(url) }

    private func count(_ context: NSManagedObjectContext) throws -> Int { try PostgreSQLStack.itemCount(context) }

    @Test func aStatementPastTheTimeoutFailsWith134090AndTheStoreGoesOn() throws {
        let server = try PostgreSQLServer.required()
        let schema = PostgreSQLScratchServer.newSchemaName()
        let url = URL(string: server.storeURL(schema: schema).absoluteString + "&statement_timeout=200")!
        let context = try context(url)
        try context.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "Milk"], into: context)
            try context.save()
        }
        // Another session holds the table: the store's next statement waits, past its timeout.
        let holder = try server.session(schema: schema)
        defer { holder.close() }
        _ = try holder.run("BEGIN", [])
        _ = try holder.run("LOCK TABLE ztspitem IN ACCESS EXCLUSIVE MODE", [])
        let started = Date()
        let error = try #require(throws: NSError.self) { try count(context) }
        #expect(error.code == NSPersistentStoreTimeoutError)
        #expect(error.localizedDescription.contains("statement_timeout"))
        // Cancelled by the server, not waited out: well before the lock goes.
        #expect(Date().timeIntervalSince(started) < 30)
        _ = try holder.run("ROLLBACK", [])
        #expect(try count(context) == 1)
    }

    @Test func requireEncryptsWithoutCheckingTheCertificate() throws {
        let server = try PostgreSQLServer.makePrivate(tls: true)
        let url = server.tcpStoreURL(sslmode: "require")
        let context = try context(url)
        try context.performAndWait {
            ConformanceStack.insert("TSPItem", ["name": "Milk"], into: context)
            try context.save()
        }
        #expect(try count(context) == 1)
        // The store's own driver, on the same URL: its connection is encrypted.
        let driver = try #require(PostgreSQLStoreInstaller.driver.withLock { $0 })
        let session = try driver.connect(try PostgreSQLEndpoint(url: url))
        defer { session.close() }
        let row = try session.run("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", []).rows.first
        #expect(row?.first == .boolean(true))
    }

    @Test func verifyFullRefusesACertificateNoAuthoritySigned() throws {
        let server = try PostgreSQLServer.makePrivate(tls: true)
        let error = try #require(throws: NSError.self) { try context(server.tcpStoreURL(host: "localhost", sslmode: "verify-full")) }
        #expect(error.code == NSPersistentStoreOpenError)
        #expect(error.localizedDescription.contains("localhost:\(server.port)"))
    }

    @Test func aServerWithoutTLSIsRefusedWhenTLSIsRequired() throws {
        let server = try PostgreSQLServer.required()
        let error = try #require(throws: NSError.self) { try context(server.tcpStoreURL(sslmode: "require")) }
        #expect(error.code == NSPersistentStoreOpenError)
        #expect(error.localizedDescription.contains("TLS"))
    }
}
