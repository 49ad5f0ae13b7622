import ArgumentParser
import OpenCoreData

/// `todo delete ID…`: deletes items through their objects.
struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete items.")

    @Argument(help: "The ids of the items, as `todo list` shows them.")
    var ids: [String]

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let store = try TodoStore(options, access: .update)
        defer { store.close() }
        let context = store.container.newTodoContext()
        let rows = try await context.perform { [ids] in
            // Every id is looked up before the first delete, and one save deletes them all: an
            // unknown id leaves the store as it was.
            let items = try store.items(withShortIDs: ids, in: context)
            let rows = items.map { TodoStore.row(for: $0) }
            for item in items { context.delete(item) }
            try context.save()
            return rows
        }
        for row in rows { print("Deleted \(row)") }
    }
}
