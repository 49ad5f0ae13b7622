import ArgumentParser
import Foundation
import OpenCoreData

/// The `--store PATH` option that every subcommand takes.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The store file (default: $XDG_DATA_HOME/todo/Done.sqlite or ~/.local/share/todo/Done.sqlite), or a PostgreSQL database shared by several machines: postgres://user:password@host:5432/db?schema=todo.",
            valueName: "path-or-url"))
    var path: String?

    /// The store the command works on.
    ///
    /// - Throws: `TodoError` for a database URL this program cannot use.
    func location() throws -> StoreLocation {
        if let path { return try StoreLocation(argument: path) }
        return .file(Self.defaultURL)
    }

    /// Whether the store is in the default folder, which the program creates on first use.
    var isDefaultLocation: Bool { path == nil }

    /// Core Data's own default folder (XDG on Linux) with a folder of the app's own, as an app
    /// keeps its store in its Application Support folder.
    static var defaultURL: URL {
        NSPersistentContainer.defaultDirectoryURL()
            .appendingPathComponent("todo", isDirectory: true)
            .appendingPathComponent("Done.sqlite")
    }
}
