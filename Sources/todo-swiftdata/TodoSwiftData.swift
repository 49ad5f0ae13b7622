import ArgumentParser
import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// `todo-swiftdata`: the tutorials' to-do list written against SwiftData's API, on Linux
/// through OpenSwiftData, in the Core Data file format Apple's SwiftData writes.
@main
struct TodoSwiftData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo-swiftdata",
        abstract: "A to-do list written with SwiftData's API (OpenSwiftData on Linux).",
        subcommands: [ListItems.self, AddItem.self, CompleteItem.self, PopulateItems.self, ItemStats.self, Demo.self],
        defaultSubcommand: ListItems.self)
}

struct ListItems: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the items, most important first.")

    @OptionGroup var options: StoreOption
    @Flag(help: "Only the items not done.") var pending = false
    @Option(help: "At most this many items.") var limit: Int?

    func run() throws {
        let context = ModelContext(try options.container())
        for item in try Self.items(in: context, pendingOnly: pending, limit: limit) {
            print("[\(item.done ? "x" : " ")] \(item.title) (priority \(item.priority))")
        }
    }

    /// The items, most important first, then by title in Finder's order.
    static func items(in context: ModelContext, pendingOnly: Bool, limit: Int?) throws -> [TodoItem] {
        var descriptor = FetchDescriptor<TodoItem>(
            predicate: pendingOnly ? #Predicate { !$0.done } : nil,
            sortBy: [SortDescriptor(\.priority, order: .reverse), SortDescriptor(\.title)])
        descriptor.fetchLimit = limit
        return try context.fetch(descriptor)
    }
}

struct AddItem: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an item.")

    @OptionGroup var options: StoreOption
    @Argument(help: "The item's title.") var title: String
    @Option(help: "0, 1 or 2.") var priority = 0

    func run() throws {
        let context = ModelContext(try options.container())
        context.insert(TodoItem(title: title, priority: priority))
        try context.save()
        print("Added: \(title)")
    }
}

struct CompleteItem: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "complete", abstract: "Mark the items with a title done.")

    @OptionGroup var options: StoreOption
    @Argument(help: "The title.") var title: String

    func run() throws {
        let context = ModelContext(try options.container())
        let title = title
        let items = try context.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.title == title }))
        guard !items.isEmpty else { throw ValidationError("No item is titled \"\(title)\".") }
        for item in items { item.done = true }
        try context.save()
        print("Done: \(title)")
    }
}

struct PopulateItems: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "populate", abstract: "Add many items, from four model actors at once.")

    @OptionGroup var options: StoreOption
    @Option(help: "How many items.") var count = 1000

    func run() async throws {
        let added = try await Self.populate(try options.container(), count: count)
        print("Added \(added) items.")
    }

    static func populate(_ container: ModelContainer, count: Int) async throws -> Int {
        let share = (count + 3) / 4
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for part in 0..<4 {
                let range = min(part * share, count)..<min((part + 1) * share, count)
                let importer = TodoImporter(modelContainer: container)
                group.addTask { try await importer.importItems(range, prefix: "Item") }
            }
            return try await group.reduce(0, +)
        }
    }
}

struct ItemStats: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Count the items.")

    @OptionGroup var options: StoreOption

    func run() throws {
        print(try Self.summary(ModelContext(try options.container())))
    }

    static func summary(_ context: ModelContext) throws -> String {
        let total = try context.fetchCount(FetchDescriptor<TodoItem>())
        let done = try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.done }))
        return "\(total) items, \(done) done, \(total - done) pending"
    }
}
