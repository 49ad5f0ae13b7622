import ArgumentParser
import OpenCoreData

/// `todo add NAME…`: one new item per name, saved together.
struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add to-do items.")

    @Argument(help: "The name of each new item.")
    var names: [String]

    @OptionGroup var options: StoreOptions

    func validate() throws {
        if names.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("An item's name can't be empty.")
        }
    }

    func run() async throws {
        let store = try TodoStore(options, access: .create)
        defer { store.close() }
        let context = store.container.newTodoContext()
        let rows = try await context.perform { [names] in
            let items = names.map { name in
                let item = TSPItem(context: context)
                item.title = name
                item.createdAt = Date()
                return item
            }
            // Saving gives the items their permanent IDs, and so the ids to show.
            try context.save()
            return items.map { TodoStore.row(for: $0) }
        }
        for row in rows { print("Added \(row)") }
    }
}
