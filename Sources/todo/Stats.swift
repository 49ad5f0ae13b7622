import ArgumentParser
import OpenCoreData

/// `todo stats`: how many items, how many done, where the store is and how big, and which model
/// version it has.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show counts, the store's size and its path.")

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let location = try options.location()
        guard let store = try TodoStore.openForReading(options) else {
            print("items:   0")
            print("store:   \(location.displayName) (not created yet)")
            return
        }
        let context = store.container.newTodoContext()
        let (total, done) = try await context.perform {
            (
                try context.count(for: TodoStore.itemsRequest()),
                try context.count(for: TodoStore.itemsRequest(done: true))
            )
        }
        let version = Stats.modelVersion(of: store.container.managedObjectModel)
        store.close()
        print("items:   \(total)")
        print("done:    \(done)")
        print("pending: \(total - done)")
        print("store:   \(location.displayName)")
        // A database's tables share the server's files: only a store file has a size of its own.
        if case .file(let url) = location { print("size:    \(Stats.format(bytes: Stats.storeSize(at: url)))") }
        print("model:   \(version)")
    }

    /// The model version the store now has, as Xcode's "Core Data Model Version Identifier" names
    /// it, and its checksum.
    static func modelVersion(of model: NSManagedObjectModel) -> String {
        let identifier = model.versionIdentifiers.compactMap { $0.base as? String }.filter { !$0.isEmpty }.sorted().joined(separator: ", ")
        return "version \(identifier.isEmpty ? "1" : identifier) (\(model.versionChecksum))"
    }

    /// The bytes of the store file. Every command that saves folds the write-ahead log back into
    /// it on closing, so the file holds the whole store.
    static func storeSize(at url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    }

    /// `812 bytes`, `4.0 KB`, `3.2 MB`, in powers of 1,024.
    static func format(bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        var value = Double(bytes) / 1024
        for unit in ["KB", "MB", "GB"] {
            if value < 1024 || unit == "GB" { return String(format: "%.1f", value) + " " + unit }
            value /= 1024
        }
        return "\(bytes) bytes"
    }
}
