import ArgumentParser
import OpenCoreData

/// `done demo`: a walk through the Core Data stack in a fresh temporary store.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a Core Data stack in a temporary store, insert to-do items, save, reopen and fetch them.")

    @Option(help: "How many items to insert.")
    var count: Int = 1_000

    @Flag(help: "Keep the store instead of deleting it at the end.")
    var keep = false

    mutating func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("done-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: folder) } }
        let storeURL = folder.appendingPathComponent("Done.sqlite")
        var steps: [(String, String, Duration)] = []
        let clock = ContinuousClock()

        var started = clock.now
        // Core Data's own way: the container finds Done.xcdatamodeld among the program's resources.
        let container = NSPersistentContainer(name: "Done")
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        let model = container.managedObjectModel
        try TodoModel.loadStores(of: container)
        steps.append(("open", "model Done.xcdatamodeld, store \(storeURL.lastPathComponent)", clock.now - started))

        started = clock.now
        let context = container.newBackgroundContext()
        let total = count
        try context.performAndWait {
            let now = Date()
            for i in 0..<total {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue("Item \(i)", forKey: "name")
                item.setValue(now.addingTimeInterval(-Double(i) * 60), forKey: "createdAt")
                item.setValue(i % 4 == 0, forKey: "done")
            }
            try context.save()
        }
        steps.append(("insert + save", "\(total) TSPItem objects in one transaction", clock.now - started))

        started = clock.now
        let reopened = TodoModel.container(model: model, storeURL: storeURL)
        try TodoModel.loadStores(of: reopened)
        let reader = reopened.newBackgroundContext()
        let (fetched, done, first) = try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
            let items = try reader.fetch(request)
            let doneCount = items.filter { $0.value(forKey: "done") as? Bool == true }.count
            let first = items.prefix(3).map { item in
                "\(item.value(forKey: "done") as? Bool == true ? "✓" : "·") \(item.value(forKey: "name") as? String ?? "")"
            }
            return (items.count, doneCount, first)
        }
        steps.append(("reopen + fetch", "\(fetched) items sorted by createdAt, \(done) done", clock.now - started))

        print("OpenCoreData demo: the Core Data stack on Linux")
        print("store: \(storeURL.path)\n")
        print("Oldest items:")
        for line in first { print("  \(line)") }
        print("")
        let width = steps.map(\.0.count).max() ?? 0
        for (name, what, duration) in steps {
            let ms = Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
            print("\(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(String(format: "%8.1f ms", ms))  \(what)")
        }
        if keep { print("\nKept the store at \(storeURL.path)") }
    }
}
