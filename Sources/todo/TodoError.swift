import OpenCoreData

/// A failure worth one line on standard error: ArgumentParser prints it as `Error: <description>`
/// and exits with status 1.
struct TodoError: Error, CustomStringConvertible {
    let description: String
    /// Whether the store to read or change does not exist yet.
    var isNoStore = false

    init(_ description: String) { self.description = description }

    /// The message of a Core Data error, on one line: its `NSError` printout lists the whole
    /// `userInfo`, which tells a user nothing more.
    init(_ error: any Error) {
        if let error = error as? TodoError {
            self = error
        } else {
            let message = (error as NSError).localizedDescription
            self.description = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        }
    }

    static func noStore(at location: StoreLocation) -> TodoError {
        var error = TodoError("There is no store at \(location.displayName) yet: add an item first with `todo add NAME`.")
        error.isNoStore = true
        return error
    }

    static func unknownID(_ id: String, in location: StoreLocation) -> TodoError {
        TodoError("No item with id \(id) in \(location.displayName) (`todo list` shows the ids).")
    }
}
