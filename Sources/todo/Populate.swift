import ArgumentParser
import OpenCoreData

/// `todo populate --count N`: the tutorials' `populateDatabase`, many items for testing.
struct Populate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Insert many numbered items, for testing.",
        discussion: """
            Inserts in a background context and saves once at the end, or every N items with --batch; \
            with --batch-insert, one NSBatchInsertRequest writes them straight to the store.
            """)

    @Option(help: "How many items to insert.")
    var count: Int

    @Option(help: "Save (and reset the context) after every this many items instead of once at the end.")
    var batch: Int?

    @Flag(help: "Insert with one batch insert request, in one transaction, without objects in a context.")
    var batchInsert = false

    @OptionGroup var options: StoreOptions

    func validate() throws {
        if count < 1 { throw ValidationError("--count must be at least 1.") }
        if let batch, batch < 1 { throw ValidationError("--batch must be at least 1.") }
        if batch != nil, batchInsert { throw ValidationError("--batch and --batch-insert can't be used together.") }
    }

    func run() async throws {
        let store = try TodoStore(options, access: .create)
        defer { store.close() }
        let progress = ProgressBar(title: "populate", total: count)
        if batchInsert {
            try await Populate.batchInsert(store.container, count: count, progress: progress)
            print("Inserted \(count) items with one batch insert request into \(store.location.displayName).")
            return
        }
        let saves = try await Populate.populateDatabase(store.container, count: count, batchSize: batch, progress: progress)
        print("Inserted \(count) items in \(saves == 1 ? "one save" : "\(saves) saves") into \(store.location.displayName).")
    }

    /// The same items as `populateDatabase`, given to one `NSBatchInsertRequest` a dictionary at a
    /// time: the store writes them in one transaction, all or none.
    static func batchInsert(_ container: NSPersistentContainer, count: Int, progress: ProgressBar) async throws {
        let context = container.newTodoContext()
        try await context.perform {
            let start = Date()
            var index = 0
            let request = NSBatchInsertRequest(entityName: TodoStore.entityName) { (item: NSMutableDictionary) in
                guard index < count else { return true }
                item["title"] = "Item \(index)"
                item["createdAt"] = start.addingTimeInterval(Double(index) / 1_000_000)
                item["done"] = false
                index += 1
                progress.update(index)
                return false
            }
            _ = try context.execute(request)
        }
        progress.finish(count)
    }

    /// Inserts `count` pending items named `Item 0`, `Item 1`, … on a background context, their
    /// `createdAt` a microsecond apart from now on, so that they list in the order inserted, after
    /// older items. Saves once, or every `batchSize` items, resetting the context after each save
    /// so that memory stays flat. Returns how many saves it made.
    static func populateDatabase(
        _ container: NSPersistentContainer, count: Int, batchSize: Int? = nil, progress: ProgressBar
    ) async throws -> Int {
        let context = container.newTodoContext()
        let saves = try await context.perform {
            let start = Date()
            var saves = 0
            for index in 0..<count {
                let item = TSPItem(context: context)
                item.title = "Item \(index)"
                item.createdAt = start.addingTimeInterval(Double(index) / 1_000_000)
                item.done = false
                if let batchSize, (index + 1) % batchSize == 0 {
                    try context.save()
                    context.reset()
                    saves += 1
                }
                progress.update(index + 1)
            }
            if context.hasChanges {
                progress.show("saving", completed: count)
                try context.save()
                saves += 1
            }
            return saves
        }
        progress.finish(count)
        return saves
    }
}
