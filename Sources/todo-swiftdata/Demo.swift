import ArgumentParser
import Foundation
import OpenCoreData

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// `demo`: the whole app once, in a temporary store: populate from four actors, complete,
/// list, count, and read the file back through Core Data with the model SwiftData derives.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the app once in a temporary store and check the file.")

    @Option(help: "How many items to populate.") var count = 2000

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todo-swiftdata-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("default.store")
        let container = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: url))

        let added = try await PopulateItems.populate(container, count: count)
        print("populate: \(added) items from four model actors")

        let context = ModelContext(container)
        context.insert(TodoItem(title: "Write the report", priority: 2))
        let first = try ListItems.items(in: context, pendingOnly: true, limit: 3)
        for item in first { item.done = true }
        try context.save()
        print("complete: \(first.map(\.title).joined(separator: ", "))")
        print("list: " + (try ListItems.items(in: context, pendingOnly: true, limit: 3)).map(\.title).joined(separator: ", "))
        let summary = try ItemStats.summary(context)
        print("stats: \(summary)")

        // The same file, read through a Core Data stack with the model SwiftData derives.
        guard let model = NSManagedObjectModel.makeManagedObjectModel(for: [TodoItem.self]) else {
            throw ValidationError("The model could not be derived.")
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentHistoryTrackingKey: true])
        let coreData = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        coreData.persistentStoreCoordinator = coordinator
        let rows = try coreData.performAndWait { try coreData.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoItem")) }
        guard rows == added + 1 else { throw ValidationError("Core Data counts \(rows) rows, not \(added + 1).") }
        print("core data: \(rows) TodoItem rows in \(url.lastPathComponent)")
        print("demo: ok")
    }
}
