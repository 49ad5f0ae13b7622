import Logging

/// How much SQL the SQLite store logs, as Core Data's `-com.apple.CoreData.SQLDebug N` launch
/// argument sets it on Apple platforms.
///
/// - 0: nothing (the default).
/// - 1 and 2: every statement a store's connections run, with its time and the rows it returned
///   or changed.
/// - 3: also the statement with its bound values.
/// - 4: also SQLite's query plan of every `SELECT` (`EXPLAIN QUERY PLAN`).
///
/// Messages go to the coordinator's ``NSPersistentStoreCoordinator/logger`` at `.info`; the
/// library never bootstraps the logging system, so without a bootstrap swift-log's default
/// handler prints them on standard error.
public enum SQLDebug {
    /// The launch argument, as on Apple platforms: `-com.apple.CoreData.SQLDebug 1`.
    public static let launchArgument = "-com.apple.CoreData.SQLDebug"
    /// The environment variable that sets the level where a launch argument is awkward (a test
    /// runner, a service): `OPENCOREDATA_SQL_DEBUG=1`.
    public static let environmentVariable = "OPENCOREDATA_SQL_DEBUG"

    /// The level this process was started with: the launch argument's value, else the
    /// environment variable's, else 0. New coordinators start with it.
    public static let processLevel: Int = level(
        arguments: ProcessInfo.processInfo.arguments, environment: ProcessInfo.processInfo.environment)

    /// The level that `arguments` and `environment` ask for.
    ///
    /// - Parameters:
    ///   - arguments: A process's arguments; `-com.apple.CoreData.SQLDebug` followed by a number
    ///     sets the level, and wins over the environment.
    ///   - environment: A process's environment; `OPENCOREDATA_SQL_DEBUG` sets the level.
    /// - Returns: The level, 0 when neither sets it or the value is not a number; negative values
    ///   count as 0.
    public static func level(arguments: [String], environment: [String: String]) -> Int {
        level(of: launchArgument, or: environmentVariable, arguments: arguments, environment: environment)
    }

    /// The level a launch argument (winning) or an environment variable sets, 0 when neither
    /// does or the value is not a number; negative values count as 0.
    static func level(of argument: String, or variable: String, arguments: [String], environment: [String: String]) -> Int {
        if let index = arguments.lastIndex(of: argument), index + 1 < arguments.count, let level = Int(arguments[index + 1]) {
            return max(0, level)
        }
        return environment[variable].flatMap { Int($0) }.map { max(0, $0) } ?? 0
    }

    /// `arguments` without Core Data's launch arguments (`-com.apple.CoreData.<Name> <value>`),
    /// for a program whose own argument parser would refuse them.
    ///
    /// - Parameter arguments: A process's arguments, the program's path first.
    /// - Returns: The same arguments less every `-com.apple.CoreData.…` option and its value.
    public static func removingLaunchArguments(from arguments: [String]) -> [String] {
        var kept: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            if arguments[index].hasPrefix("-com.apple.CoreData.") {
                index += 2
            } else {
                kept.append(arguments[index])
                index += 1
            }
        }
        return kept
    }

    /// The logger a coordinator starts with.
    static let defaultLogger = Logger(label: "com.apple.CoreData.SQLDebug")
}

/// What a store logs, taken from its coordinator when the store opens: store-neutral, so that the
/// coordinator never knows which store it configures.
package struct StoreLogging: Sendable {
    package var level: Int
    package var logger: Logger

    package static let off = StoreLogging(level: 0, logger: SQLDebug.defaultLogger)
}
