import Foundation

/// Where and how a container keeps its models: a store file (by default `default.store` in the
/// platform's application-support folder, `$XDG_DATA_HOME` on Linux) or memory only.
public struct ModelConfiguration: Hashable, Sendable {
    /// The configuration's name (`default` unless given).
    public let name: String
    /// The store file.
    public let url: URL
    /// Whether the store lives in memory only, gone with the container.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to the store.
    public let allowsSave: Bool
    /// The models this configuration stores; nil for all of the container's schema.
    public let schema: Schema?

    /// A configuration for the default store, or one in memory.
    ///
    /// - Parameters:
    ///   - name: The configuration's name; the store file is `<name>.store` when given.
    ///   - schema: The models it stores; nil for the container's whole schema.
    ///   - isStoredInMemoryOnly: Whether to keep the store in memory only.
    ///   - allowsSave: Whether contexts may save.
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        self.name = name ?? "default"
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null") : Self.defaultDirectory.appendingPathComponent("\(name ?? "default").store")
    }

    /// A configuration for the store at `url`: a file, or (an OpenCoreData addition) a PostgreSQL
    /// database named as `postgres://user:password@host:5432/database?schema=app` when the app
    /// links the `OpenCoreDataPostgreSQL` product, one schema per store.
    ///
    /// - Parameters:
    ///   - name: The configuration's name.
    ///   - schema: The models it stores; nil for the container's whole schema.
    ///   - url: The store file, or a `postgres://` URL.
    ///   - allowsSave: Whether contexts may save.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.name = name ?? "default"
        self.schema = schema
        self.url = url
        isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
    }

    /// A configuration for the default store or one in memory.
    ///
    /// - Parameter isStoredInMemoryOnly: Whether to keep the store in memory only.
    public init(isStoredInMemoryOnly: Bool) {
        self.init(nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// Whether the store is a PostgreSQL database (`postgres://`, `postgresql://`).
    var isPostgreSQL: Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "postgres" || scheme == "postgresql"
    }

    /// Where the store is, for errors: the file's path, or the database's URL without its password.
    var redactedLocation: String {
        guard isPostgreSQL, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.path }
        if parts.password != nil { parts.password = "***" }
        return parts.string ?? url.absoluteString
    }

    /// The application-support folder: `$XDG_DATA_HOME`, else `~/.local/share`, on Linux.
    static var defaultDirectory: URL {
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !data.isEmpty { return URL(fileURLWithPath: data, isDirectory: true) }
        return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share", isDirectory: true)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly && lhs.allowsSave == rhs.allowsSave
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }
}
