import ArgumentParser
import OpenCoreData

/// `done`: the to-do app of Core Data's classic tutorials, as a command-line program.
@main
struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A to-do list on OpenCoreData, Core Data for Linux.",
        subcommands: [Demo.self],
        defaultSubcommand: Demo.self)
}
