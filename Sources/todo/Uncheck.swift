import ArgumentParser
import OpenCoreData

/// `todo uncheck ID…`: marks items as not done again.
struct Uncheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark items as not done.")

    @Argument(help: "The ids of the items, as `todo list` shows them.")
    var ids: [String]

    @OptionGroup var options: StoreOptions

    func run() async throws {
        try await Check.mark(ids, done: false, options: options, verb: "Unchecked")
    }
}
