import Logging

/// Whether migrations say what they do, as Core Data's `-com.apple.CoreData.MigrationDebug 1`
/// launch argument asks on Apple platforms: the source model found, the mapping and its kind,
/// each table altered or rebuilt, each stage of a staged migration, each entity mapping's pass,
/// and the time taken.
///
/// - 0: only the line that a migration completed, and only when SQL logging is on (the default).
/// - 1 and above: every step.
///
/// Messages go to the coordinator's ``NSPersistentStoreCoordinator/logger`` at `.info`.
public enum MigrationDebug {
    /// The launch argument, as on Apple platforms: `-com.apple.CoreData.MigrationDebug 1`.
    public static let launchArgument = "-com.apple.CoreData.MigrationDebug"
    /// The environment variable that sets the level where a launch argument is awkward:
    /// `OPENCOREDATA_MIGRATION_DEBUG=1`.
    public static let environmentVariable = "OPENCOREDATA_MIGRATION_DEBUG"

    /// The level this process was started with: the launch argument's value, else the
    /// environment variable's, else 0. New coordinators start with it.
    public static let processLevel: Int = SQLDebug.level(
        of: launchArgument, or: environmentVariable, arguments: ProcessInfo.processInfo.arguments,
        environment: ProcessInfo.processInfo.environment)
}

/// A migration's log: its steps when the coordinator's migration debug level is on, and its
/// completion also when SQL logging is.
package struct MigrationLog: Sendable {
    let level: Int
    let sqlLevel: Int
    let logger: Logger

    package static let off = MigrationLog(level: 0, sqlLevel: 0, logger: SQLDebug.defaultLogger)

    /// A step, logged at level 1 and above.
    package func step(_ message: @autoclosure () -> String) {
        guard level > 0 else { return }
        logger.info("(migration) \(message())")
    }

    /// A migration's end, as Core Data words it.
    package func completed(_ kind: String, seconds: Double) {
        guard level > 0 || sqlLevel > 0 else { return }
        logger.info("(migration) \(kind) completed successfully in \(String(format: "%.2f", seconds)) seconds")
    }
}
