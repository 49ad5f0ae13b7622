/// What a product that brings a store type (OpenCoreDataPostgreSQL) offers to code that cannot
/// depend on it: a class, found by name when the app links the product, that registers the type.
///
/// OpenSwiftData chooses the store from a configuration's URL; it must open a `postgres://` store
/// when the app links the PostgreSQL product, without making every SwiftData app link postgres-nio.
package protocol LinkedStoreTypeInstaller: AnyObject {
    /// Registers the product's store type with every coordinator.
    static func installStoreType()
}

/// Registers store types of products the app may have linked.
package enum LinkedStoreTypes {
    /// Whether `typeName` is registered, after asking the class named `installerClassName`
    /// (`Module.Class`) to register it if the app linked it.
    ///
    /// - Parameters:
    ///   - typeName: The store type's name.
    ///   - installerClassName: The `LinkedStoreTypeInstaller` class of the product that brings it.
    /// - Returns: Whether a coordinator can now add a store of the type.
    package static func ensureRegistered(_ typeName: String, installerClassName: String) -> Bool {
        if isRegistered(typeName) { return true }
        // A type lookup by name finds the class only when its module is linked into the process.
        (_typeByName(installerClassName) as? any LinkedStoreTypeInstaller.Type)?.installStoreType()
        return isRegistered(typeName)
    }

    private static func isRegistered(_ typeName: String) -> Bool {
        NSPersistentStoreCoordinator.registeredTypes.withLock { $0[typeName] != nil }
    }
}
