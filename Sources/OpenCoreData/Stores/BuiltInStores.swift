/// The store types every coordinator knows from the start, as Core Data's: the coordinator takes
/// them from here, and knows no store class by name itself. Other types (the PostgreSQL store,
/// an app's custom stores) are registered with `registerStoreClass(_:forStoreType:)`.
enum BuiltInStores {
    static let types: [String: NSPersistentStore.Type] = [
        NSSQLiteStoreType: SQLiteStore.self,
        NSInMemoryStoreType: InMemoryStore.self,
    ]
}
