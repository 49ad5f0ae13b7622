import OpenCoreData

/// A failure worth one line on standard error: ArgumentParser prints it as `Error: <description>`
/// and exits with status 1.
struct InspectError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// The message of a Core Data or file-system error, on one line.
    init(_ error: any Error) {
        if let error = error as? InspectError {
            self = error
        } else {
            self.description = (error as NSError).localizedDescription.split(whereSeparator: \.isNewline).joined(separator: " ")
        }
    }
}
