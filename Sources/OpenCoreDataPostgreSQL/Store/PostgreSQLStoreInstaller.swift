import OpenCoreData

/// Registers the PostgreSQL store type with the connection driver `OpenCoreDataPostgreSQL`
/// supplies; the store cannot open without one.
package enum PostgreSQLStoreInstaller {
    /// The store's type name (`NSPostgreSQLStoreType`).
    package static let typeName = "PostgreSQL"

    /// The driver stores open their sessions with; nil until installed.
    static let driver = Locked<(any PostgreSQLDriver)?>(nil)

    /// Makes the type known to every coordinator, with `driver` for its connections.
    ///
    /// - Parameter driver: What opens sessions with the server.
    package static func install(driver: any PostgreSQLDriver) {
        self.driver.withLock { $0 = driver }
        NSPersistentStoreCoordinator.registerStoreClass(PostgreSQLStore.self, forStoreType: typeName)
    }
}
