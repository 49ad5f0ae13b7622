import Foundation
import Testing
import GRDB

/// What Apple's tools recorded next to the fixture models: the hashes Xcode compiled into each
/// `.momd`, and the metadata Core Data wrote into each store. These are the oracles the loader and
/// the version hasher are checked against.
enum FixtureMetadata {
    /// `NSManagedObjectModel_VersionHashes` of a `.momd`'s `VersionInfo.plist`: version name →
    /// entity name → hash.
    static func versionHashes(momd relativePath: String) throws -> [String: [String: Data]] {
        let info = try versionInfo(momd: relativePath)
        return try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
    }

    /// `NSManagedObjectModel_VersionChecksums` of a `.momd`; empty when Xcode did not write them.
    static func versionChecksums(momd relativePath: String) throws -> [String: String] {
        try versionInfo(momd: relativePath)["NSManagedObjectModel_VersionChecksums"] as? [String: String] ?? [:]
    }

    private static func versionInfo(momd relativePath: String) throws -> [String: Any] {
        let data = try Data(contentsOf: Fixtures.url(relativePath).appendingPathComponent("VersionInfo.plist"))
        return try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    /// The Z_METADATA property list of a fixture store. The fixtures are read-only and in WAL mode,
    /// so SQLite could not open them in place; a writable copy in a fresh folder is read instead.
    static func storeMetadata(_ relativePath: String) throws -> [String: Any] {
        let folder = TemporaryDirectory()
        let copy = folder.file("Store.sqlite")
        let plist: Data? = try withExtendedLifetime(folder) {
            try Data(contentsOf: Fixtures.url(relativePath)).write(to: copy)
            let queue = try DatabaseQueue(path: copy.path)
            defer { try? queue.close() }
            return try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }
        }
        let data = try #require(plist)
        return try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }
}
