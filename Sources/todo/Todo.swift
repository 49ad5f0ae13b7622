import ArgumentParser
import OpenCoreData

/// `done`: the to-do app of Core Data's classic tutorials, as a command-line program.
@main
struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A to-do list on OpenCoreData, Core Data for Linux.",
        subcommands: [
            List.self, Add.self, Check.self, Uncheck.self, CheckAll.self, Delete.self, ClearDone.self, Fetch.self, Populate.self,
            Stats.self, Demo.self,
        ],
        defaultSubcommand: List.self)

    /// ArgumentParser's own `main`, except that Core Data's and the file system's errors are
    /// reported by their message alone: an `NSError` prints its whole `userInfo` otherwise.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: type(of: error) is NSError.Type || error is CocoaError ? DoneError(error) : error)
        }
    }
}
