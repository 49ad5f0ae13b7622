import OpenCoreData

/// One step of `todo demo`: a name for the final table, and the work, which returns what it did in
/// a few words. Steps run in order and share a `DemoRun`.
struct DemoStep {
    let name: String
    let run: (DemoRun) async throws -> String
}

/// What the demo's steps share: the store, the stack the first step builds, and what earlier
/// steps left for later ones.
final class DemoRun: @unchecked Sendable {
    // @unchecked Sendable: the steps run one after the other, and `items` are the context's
    // objects, read only inside its `perform` blocks (the thread confinement Core Data asks of
    // objects, which the compiler cannot see).
    let location: StoreLocation
    let count: Int

    /// Built by the first step.
    private(set) var store: TodoStore?
    /// The context the walkthrough reads and edits through, as an app's view controller does
    /// through its context.
    private(set) var context: NSManagedObjectContext?
    /// The items as the last fetch returned them, oldest first, registered in `context`.
    var items: [TSPItem] = []

    init(location: StoreLocation, count: Int) {
        self.location = location
        self.count = count
    }

    /// Opens the store and makes the walkthrough's context.
    func open() throws -> TodoStore {
        let store = try TodoStore(at: location, access: .create)
        self.store = store
        let context = store.container.newTodoContext()
        self.context = context
        // A file is new when it did not exist; a database schema may already hold a store, and
        // the walkthrough's counts assume an empty one.
        if case .database = location {
            let existing = try context.performAndWait { try context.count(for: TodoStore.itemsRequest()) }
            if existing > 0 { throw TodoError("The demo makes a new store, and \(location.displayName) already holds \(existing) items.") }
        }
        return store
    }

    /// The open stack; the steps after the first one can rely on it.
    var stack: (store: TodoStore, context: NSManagedObjectContext) {
        guard let store, let context else { preconditionFailure("The demo's first step opens the store.") }
        return (store, context)
    }
}
