import ArgumentParser
import OpenCoreData

/// The `--store PATH` option that every subcommand takes.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The store file (default: $XDG_DATA_HOME/todo/Done.sqlite or ~/.local/share/todo/Done.sqlite).",
            valueName: "path"))
    var path: String?

    /// The store file the command works on.
    var url: URL {
        if let path { return URL(fileURLWithPath: path) }
        return Self.defaultURL
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
