import ArgumentParser
import OpenCoreData

/// `todo list`: the items, oldest first, with their ids and check marks.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the items, oldest first.")

    /// Which items to show.
    enum Filter: String, EnumerableFlag {
        case all, pending, done

        static func help(for value: Filter) -> ArgumentHelp? {
            switch value {
            case .all: "Show every item (the default)."
            case .pending: "Show only the items not yet done."
            case .done: "Show only the items done."
            }
        }
    }

    @Flag var filter: Filter = .all

    @Option(help: "Show at most this many items.")
    var limit: Int?

    @OptionGroup var options: StoreOptions

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
    }

    func run() async throws {
        // Reading never creates a store: a missing one is an empty list.
        guard let store = try TodoStore.openForReading(options) else {
            print("No items yet: there is no store at \(try options.location().displayName). Add one with `todo add NAME`.")
            return
        }
        defer { store.close() }
        let context = store.container.newTodoContext()
        let done = filter == .all ? nil : filter == .done
        let (rows, matching) = try await context.perform { [limit] in
            let request = TodoStore.itemsRequest(done: done)
            let matching = try context.count(for: request)
            if let limit { request.fetchLimit = limit }
            let items = try context.fetch(request)
            let idWidth = items.map { TodoStore.shortID(of: $0.objectID).count }.max() ?? 0
            return (items.map { TodoStore.row(for: $0, idWidth: idWidth) }, matching)
        }
        if rows.isEmpty {
            print(filter == .all ? "No items." : "No \(filter.rawValue) items.")
            return
        }
        for row in rows { print(row) }
        if matching > rows.count { print("(\(rows.count) of \(matching) shown)") }
    }
}
