import ArgumentParser
import OpenCoreData

/// `coredata-inspect`: reads any Core Data or SwiftData SQLite store without its model, from the
/// model the store caches (`Z_MODELCACHE`) or, for a store without one, from its tables. It
/// works on a copy of the store's files and never writes to the store itself.
@main
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coredata-inspect",
        abstract: "Reads a Core Data or SwiftData SQLite store without its model, changing nothing.",
        discussion: """
            The model comes from the store's own model cache (Z_MODELCACHE), or, for a store \
            without one, from its tables. The store is copied to a temporary folder first and \
            only the copy is opened.
            """,
        subcommands: [Entities.self, Dump.self, History.self, Metadata.self, Model.self])

    /// ArgumentParser's `main`, except that Core Data's errors print as their message alone, on
    /// one line, rather than as an `NSError` with its whole `userInfo`.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as InspectError {
            exit(withError: error)
        } catch {
            exit(withError: type(of: error) is NSError.Type || error is CocoaError ? InspectError(error) : error)
        }
    }
}

/// The store path every subcommand takes first.
struct StoreArgument: ParsableArguments {
    @Argument(help: "The store file (.sqlite, .store).")
    var store: String
}
