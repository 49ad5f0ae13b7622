import OpenCoreData

/// A failure worth one line on standard error: ArgumentParser prints it as `Error: <description>`
/// and exits with status 1.
struct DoneError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// The message of a Core Data error, on one line: its `NSError` printout lists the whole
    /// `userInfo`, which tells a user nothing more.
    init(_ error: any Error) {
        if let error = error as? DoneError {
            self = error
        } else {
            let message = (error as NSError).localizedDescription
            self.description = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        }
    }

    static func noStore(at url: URL) -> DoneError {
        DoneError("There is no store at \(url.path) yet: add an item first with `done add NAME`.")
    }

    static func unknownID(_ id: String, in url: URL) -> DoneError {
        DoneError("No item with id \(id) in \(url.path) (`done list` shows the ids).")
    }
}
