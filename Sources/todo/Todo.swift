import ArgumentParser
import Logging
import OpenCoreData

/// `todo`: the to-do app of Core Data's classic tutorials, as a command-line program.
///
/// Not `done`, the tutorials' name: that is a reserved word of bash and zsh, so `done list` typed
/// at a shell prompt is a syntax error.
@main
struct Todo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "A to-do list on OpenCoreData, Core Data for Linux.",
        subcommands: [
            List.self, Add.self, Check.self, Uncheck.self, CheckAll.self, Delete.self, ClearDone.self, Fetch.self, Populate.self,
            Stats.self, Watch.self, Demo.self,
        ],
        defaultSubcommand: List.self)

    /// `--store PATH` before the subcommand, as git, docker and psql take their global options.
    /// ArgumentParser hands a value parsed here to the subcommand's option group of the same type.
    @OptionGroup var options: StoreOptions

    /// ArgumentParser's own `main`, except that Core Data's and the file system's errors are
    /// reported by their message alone: an `NSError` prints its whole `userInfo` otherwise.
    ///
    /// Core Data's launch arguments (`-com.apple.CoreData.SQLDebug 1`) are the library's, read
    /// from the process's arguments: they are taken out before ArgumentParser, which would refuse
    /// them. The program, not the library, chooses where log messages go: standard error.
    static func main() async {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        do {
            var command = try parseAsRoot(SQLDebug.removingLaunchArguments(from: Array(CommandLine.arguments.dropFirst())))
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: type(of: error) is NSError.Type || error is CocoaError ? TodoError(error) : error)
        }
    }
}
