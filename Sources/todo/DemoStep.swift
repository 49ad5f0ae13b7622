import OpenCoreData

/// One step of `todo demo`: a name for the final table, and the work, which returns what it did in
/// a few words. Steps run in order and share a `DemoRun`.
struct DemoStep {
    let name: String
    let run: (DemoRun) async throws -> String
}

/// What the demo's steps share: the store, the stack the first step builds, and what earlier
/// steps left for later ones.
final class DemoRun {
    let storeURL: URL
    let count: Int

    /// Built by the first step.
    private(set) var store: TodoStore?
    /// The context the walkthrough reads and edits through, as an app's view controller does
    /// through its context.
    private(set) var context: NSManagedObjectContext?
    /// The items as the last fetch returned them, oldest first, registered in `context`.
    var items: [TSPItem] = []

    init(storeURL: URL, count: Int) {
        self.storeURL = storeURL
        self.count = count
    }

    /// Opens the store and makes the walkthrough's context.
    func open() throws -> TodoStore {
        let store = try TodoStore(at: storeURL, access: .create)
        self.store = store
        self.context = store.container.newTodoContext()
        return store
    }

    /// The open stack; the steps after the first one can rely on it.
    var stack: (store: TodoStore, context: NSManagedObjectContext) {
        guard let store, let context else { preconditionFailure("The demo's first step opens the store.") }
        return (store, context)
    }
}
