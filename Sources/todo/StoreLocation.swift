import Foundation
import OpenCoreData

// The store itself builds without the PostgreSQL trait; only its connections need it.
import OpenCoreDataPostgreSQL

/// Where the items are kept: a SQLite file, or a PostgreSQL database (`postgres://…?schema=app`)
/// that several machines running `todo` share.
enum StoreLocation: Equatable, Sendable {
    case file(URL)
    case database(URL)

    /// What `--store` names: a `postgres://` or `postgresql://` URL is a database, anything else a
    /// file path.
    ///
    /// - Throws: `TodoError` for a database URL that does not parse, or when the program was built
    ///   without the PostgreSQL store.
    init(argument: String) throws {
        let lowered = argument.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else {
            self = .file(URL(fileURLWithPath: argument))
            return
        }
        #if PostgreSQL
        // Not repeated: the text may hold a password.
        guard let url = URL(string: argument) else { throw TodoError("The --store URL is not a valid URL.") }
        self = .database(url)
        #else
        throw TodoError("This todo was built without the PostgreSQL store (the package's PostgreSQL trait).")
        #endif
    }

    var url: URL {
        switch self {
        case .file(let url), .database(let url): url
        }
    }

    /// The store type `NSPersistentStoreDescription` is given.
    var storeType: String {
        switch self {
        case .file: NSSQLiteStoreType
        case .database:
            #if PostgreSQL
            NSPostgreSQLStoreType
            #else
            preconditionFailure("refused by init(argument:)")
            #endif
        }
    }

    /// How messages name the store: the file's path, or the database URL without its password.
    var displayName: String {
        switch self {
        case .file(let url): url.path
        case .database(let url): PostgreSQLEndpoint.redacted(url)
        }
    }

    /// What `--store` takes to name this store again, for the programs the demo starts.
    var argument: String {
        switch self {
        case .file(let url): url.path
        case .database(let url): url.absoluteString
        }
    }

    /// Whether the store may exist, before anything is opened: a file that is not empty; a
    /// database is known only once asked (opening it read-only reports a missing store).
    var exists: Bool {
        switch self {
        case .file(let url):
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
            return size.map { $0 > 0 } ?? false || FileManager.default.fileExists(atPath: url.path + "-wal")
        case .database: return true
        }
    }
}
