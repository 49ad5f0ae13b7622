import BenchmarkSupport
import Foundation
import OpenCoreData

/// One way of doing every case: raw SQLite, GRDB records or OpenCoreData.
///
/// The harness makes a fresh database file for each run, then calls `init` (opening, not timed),
/// `run` (timed), measures the heap while the way still holds what the run produced, `release`
/// (timed: letting go of the results is part of a request's life, as a server's short-lived
/// context dies with its objects), and `close` (not timed).
protocol BenchmarkWay: AnyObject {
    /// The name the table shows.
    static var name: String { get }

    /// Opens the database at `databaseURL`.
    init(databaseURL: URL, fixture: Fixture) throws

    /// Does `benchCase` and keeps its results alive until `close()`.
    ///
    /// - Returns: how many rows or objects the case returned or changed.
    func run(_ benchCase: BenchCase) throws -> Int

    /// Lets go of what `run` produced, as a request's end does.
    func release() throws

    /// Closes the database.
    func close() throws

    /// Whether the way does `benchCase` (a way measuring one reading style does only reads).
    static func supports(_ benchCase: BenchCase) -> Bool

    /// What `benchCase` needs done on the opened database before the timing starts.
    func prepare(_ benchCase: BenchCase) throws
}

extension BenchmarkWay {
    static func supports(_ benchCase: BenchCase) -> Bool { true }

    /// Writes the data set through the way itself for `count-after-writes`, so that the count
    /// runs on whatever the way's own writing left (its connection's cache, the WAL).
    func prepare(_ benchCase: BenchCase) throws {
        guard benchCase == .countAfterWrites else { return }
        _ = try run(.insert)
        try release()
    }
}

/// What every run shares: the data set, the OpenCoreData model, and the template stores runs copy.
struct Fixture {
    let data: DataSet
    let model: NSManagedObjectModel
    let templates: StoreTemplates
}

/// A failure the harness reports with the case and way it happened in.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
