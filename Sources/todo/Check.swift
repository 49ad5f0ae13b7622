import ArgumentParser
import OpenCoreData

/// `todo check ID…`: marks items done, as tapping a row does in the tutorials' table.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark items as done.")

    @Argument(help: "The ids of the items, as `todo list` shows them.")
    var ids: [String]

    @OptionGroup var options: StoreOptions

    func run() async throws {
        try await Check.mark(ids, done: true, options: options, verb: "Checked")
    }

    /// Sets `todo` on the items through their objects and saves once, so that an unknown id among
    /// `ids` changes nothing.
    static func mark(_ ids: [String], done: Bool, options: StoreOptions, verb: String) async throws {
        let store = try TodoStore(options, access: .update)
        defer { store.close() }
        let context = store.container.newTodoContext()
        let rows = try await context.perform {
            let items = try store.items(withShortIDs: ids, in: context)
            for item in items { item.done = done }
            try context.save()
            return items.map { TodoStore.row(for: $0) }
        }
        for row in rows { print("\(verb) \(row)") }
    }
}
