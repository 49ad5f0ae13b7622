#if PostgreSQL
import OpenCoreData

/// The PostgreSQL store's type name, for `NSPersistentStoreDescription.type` and
/// `addPersistentStore(ofType:…)`, with a `postgres://user@host:5432/database?schema=app` URL.
///
/// Reading it (or `NSPersistentStore.StoreType.postgreSQL`) registers the store type with
/// postgres-nio as its connection, so that naming the type is all an app does.
public let NSPostgreSQLStoreType: String = {
    PostgreSQLStoreInstaller.install(driver: NIOPostgreSQLDriver())
    return PostgreSQLStoreInstaller.typeName
}()

extension NSPersistentStore.StoreType {
    /// A store in a PostgreSQL database: one schema per store, many processes and machines on one
    /// database, remote changes delivered to every coordinator connected to it.
    public static var postgreSQL: NSPersistentStore.StoreType { NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType) }
}

/// Opens sessions with postgres-nio.
struct NIOPostgreSQLDriver: PostgreSQLDriver {
    func connect(_ endpoint: PostgreSQLEndpoint) throws -> any PostgreSQLSession {
        try NIOPostgreSQLSession.connect(endpoint)
    }
}
#endif

#if PostgreSQL
/// Registers the store type when code that cannot name `NSPostgreSQLStoreType` (OpenSwiftData,
/// given a `postgres://` configuration) finds this class by its name,
/// `OpenCoreDataPostgreSQL.PostgreSQLLinkedStoreInstaller`.
package final class PostgreSQLLinkedStoreInstaller: LinkedStoreTypeInstaller {
    package static func installStoreType() {
        _ = NSPostgreSQLStoreType
    }
}
#endif
