import Foundation

/// Whether work may be handed to a second thread while the caller goes on (a chunked read, a large
/// save's IDs): with one core the two would only take turns.
enum SecondThread {
    static let helps = ProcessInfo.processInfo.activeProcessorCount > 1
}
