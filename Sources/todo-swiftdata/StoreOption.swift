import ArgumentParser
import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// `--store PATH`: the store file; SwiftData's default store when not given.
struct StoreOption: ParsableArguments {
    @Option(name: .long, help: "The store file (default: default.store in the application-support folder).")
    var store: String?

    /// The container of the to-do items' store.
    func container() throws -> ModelContainer {
        let configuration = store.map { ModelConfiguration(url: URL(fileURLWithPath: $0)) } ?? ModelConfiguration()
        return try ModelContainer(for: TodoItem.self, configurations: configuration)
    }
}
